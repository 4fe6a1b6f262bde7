import { mkdtempSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  positionToString,
  SqliteEventStore,
  type EventStore,
  type Position,
  type RecordedEvent,
  type Subscription,
  type SubscribeOptions,
} from '../event-store';
import { Faults, FaultyEventStore } from '../testing/faulty-stores';
import { topicMatches, type BusNotification, type BusSubscribeOptions, type NotificationBody, type NotificationBus } from './notification-bus.port';
import { afterCommitted, SessionNotificationStream, type SessionStreamSink } from './session-notification-stream';

const HOST = 'example.test';
const ORG = 'acme';
const TOPIC = 'agents/a/sessions/s';

/** A log whose live subscriptions deliver nothing while held (a lagging poll on a loaded machine). */
class HeldLog implements EventStore {
  private valve: Promise<void> = Promise.resolve();
  private open: () => void = () => undefined;
  constructor(private readonly inner: EventStore) {}
  hold(): void {
    this.valve = new Promise((resolve) => (this.open = resolve));
  }
  release(): void {
    this.open();
  }
  append: EventStore['append'] = (...args) => this.inner.append(...args);
  readStream: EventStore['readStream'] = (...args) => this.inner.readStream(...args);
  readAll: EventStore['readAll'] = (...args) => this.inner.readAll(...args);
  readSnapshot: EventStore['readSnapshot'] = (...args) => this.inner.readSnapshot(...args);
  writeSnapshot: EventStore['writeSnapshot'] = (...args) => this.inner.writeSnapshot(...args);
  headPosition: EventStore['headPosition'] = () => this.inner.headPosition();
  close: EventStore['close'] = () => this.inner.close();
  subscribeToAll(options: SubscribeOptions): Subscription {
    const inner = this.inner.subscribeToAll(options);
    const log = this;
    async function* run(): AsyncGenerator<RecordedEvent> {
      for await (const event of inner) {
        await log.valve;
        yield event;
      }
    }
    return { [Symbol.asyncIterator]: () => run(), unsubscribe: () => inner.unsubscribe() };
  }
}

/**
 * A bus whose delivery the test chooses: `early` delivers at publish, ahead of the log; `late`
 * delivers 300 ms after publish, behind the log, unless `sync` (the port's promise: what was
 * published before the call is delivered when it resolves) comes first.
 */
class ScriptedBus implements NotificationBus {
  private readonly subscribers = new Set<{ org: string } & BusSubscribeOptions>();
  private readonly queued: BusNotification[] = [];
  syncs = 0;
  constructor(private readonly mode: 'early' | 'late') {}

  async publish(org: string, topic: string, notification: NotificationBody): Promise<void> {
    const n = { org, topic, notification };
    if (this.mode === 'early') return this.deliver(n);
    this.queued.push(n);
    setTimeout(() => this.flush(), 300).unref();
  }
  async subscribe(org: string, options: BusSubscribeOptions) {
    const subscriber = { org, ...options };
    this.subscribers.add(subscriber);
    return { close: () => void this.subscribers.delete(subscriber) };
  }
  async sync(): Promise<void> {
    this.syncs++;
    await new Promise((resolve) => setTimeout(resolve, 5)); // a round trip to the bus's store
    this.flush();
  }
  async close(): Promise<void> {
    this.subscribers.clear();
  }
  private flush(): void {
    for (const n of this.queued.splice(0)) this.deliver(n);
  }
  private deliver(n: BusNotification): void {
    for (const s of this.subscribers) if (s.org === n.org && topicMatches(s.topic, n.topic)) s.onNotification(n);
  }
}

/** What the subscriber saw, one label per notification: `n:` ActivityNotification, `c:` Activity (committed), `e:` ephemeral. */
function recorder() {
  const seen: string[] = [];
  const marks: unknown[] = [];
  let slow: Promise<void> = Promise.resolve();
  const sink: SessionStreamSink = {
    send: (n) => {
      const value = n.notification.value as { '@type': string; text?: string; activity?: Activity; user?: { text: { text: string } }; assistant?: { text: { text: string } } };
      marks.push(n.notification._after);
      if (value['@type'].endsWith('ActivityNotification')) seen.push(`n:${textOf(value.activity!)}`);
      else if (value['@type'].endsWith('.Activity')) seen.push(`c:${textOf(value as Activity)}`);
      else seen.push(`e:${value.text}`);
    },
    drained: () => slow,
    caughtUp: () => undefined,
    overflow: () => seen.push('overflow'),
    failed: () => seen.push('failed'),
  };
  return {
    seen,
    marks,
    sink,
    /** The client stops reading until `resume` is called. */
    pause(): () => void {
      let resume: () => void = () => undefined;
      slow = new Promise((resolve) => (resume = resolve));
      return () => {
        slow = Promise.resolve();
        resume();
      };
    },
  };
}

type Activity = { user?: { text: { text: string } }; assistant?: { text: { text: string } } };
const textOf = (a: Activity) => (a.user ?? a.assistant)!.text.text;

describe('SessionNotificationStream: a turn\'s notifications in order', () => {
  let dir: string;
  let store: SqliteEventStore;
  let log: HeldLog;
  let faults: Faults;
  let streams: SessionNotificationStream | undefined;
  let offset: number;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-session-stream-'));
    store = new SqliteEventStore({ file: join(dir, 'events.db') });
    log = new HeldLog(store);
    faults = new Faults();
    offset = 0;
  });
  afterEach(async () => {
    log.release();
    await streams?.close();
    streams = undefined;
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const open = (bus: NotificationBus) =>
    (streams = new SessionNotificationStream({ events: new FaultyEventStore(log, faults), bus, typeHost: HOST, maxWaitMs: 10_000 }));

  const append = async (type: string, data: Record<string, unknown>): Promise<Position> => {
    const metadata = { org: ORG, actor: 'users/alice', subject: 'users/alice', correlationId: 'c', causationId: 'c', occurredAt: new Date().toISOString(), schemaVersion: 1 };
    const result = await store.append(`session-${ORG}:${TOPIC}`, [{ id: randomUUID(), type, data, metadata }], 'any');
    return result.position;
  };
  const write = (author: 'user' | 'runtime', text: string) =>
    append('SessionMessagesWritten', {
      firstOffset: offset++,
      messages: [{ '@type': `${HOST}/svc.nxagent.v1.Activity`, [author === 'user' ? 'user' : 'assistant']: { text: { text } } }],
      writeMode: 'WRITE_MODE_CHECKPOINT',
      author,
      writeTime: new Date().toISOString(),
    });
  /** A checkpoint Write: the user's message, then the turn it requests; answers the request's position. */
  const ask = async (text: string): Promise<string> => {
    await write('user', text);
    return positionToString(await append('SessionTurnRequested', { turnId: `turn-${offset - 1}`, throughOffset: offset, requestTime: new Date().toISOString() }));
  };
  /** What the turn runner does: stream its output marked after the request (afterCommitted), then commit its reply. */
  const runTurn = async (bus: NotificationBus, after: string, reply: string, beforeCommit?: () => Promise<void>) => {
    for (const text of ['thinking', 'delta']) await bus.publish(ORG, TOPIC, afterCommitted({ value: { '@type': `${HOST}/svc.nxagent.v1.AssistantOutput`, text } }, after));
    await beforeCommit?.();
    await write('runtime', reply);
  };
  const until = async (cond: () => boolean) => {
    const deadline = Date.now() + 10_000;
    while (!cond()) {
      if (Date.now() > deadline) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  const settle = () => new Promise((r) => setTimeout(r, 100));
  const TURN = ['n:question', 'c:question', 'e:thinking', 'e:delta', 'n:answer', 'c:answer'];

  // Each row is one way the two sources can reach a process: the bus ahead of the log or behind it,
  // the log prompt, lagging, or failing mid-turn. The subscriber sees the same order in all of them.
  it.each([
    ['early', 'prompt'],
    ['late', 'prompt'],
    ['early', 'lagging'],
    ['late', 'lagging'],
    ['early', 'failing'],
    ['late', 'failing'],
  ] as const)('bus %s, log %s: the question, then the turn\'s output, then its reply; nothing lost, repeated or marked', async (mode, store) => {
    const bus = new ScriptedBus(mode);
    const got = recorder();
    const subscription = await open(bus).subscribe({ org: ORG, topic: TOPIC }, got.sink);
    if (store === 'lagging') log.hold();
    // The fault hits the question's delivery, and the resubscription's first try: the feed backs off twice.
    if (store === 'failing') faults.failNext('subscription', 2);

    const after = await ask('question');
    await runTurn(bus, after, 'answer', async () => {
      if (mode !== 'early') return;
      if (store === 'prompt') return until(() => got.seen.length === 4);
      await settle();
      // The output reached the process before the message it answers: it waits.
      expect(got.seen).toEqual([]);
    });
    log.release();

    await until(() => got.seen.length >= TURN.length);
    await settle();
    expect(got.seen).toEqual(TURN);
    expect(got.marks.every((m) => m === undefined)).toBe(true);
    if (mode === 'late') expect(bus.syncs).toBeGreaterThan(0);
    if (store === 'failing') expect(faults.injected.subscription).toBe(2);
    subscription.close();
    expect(streams!.listenerCount).toBe(0);
  });

  // A client resuming with Last-Event-ID is sent the log from there while the shared feed runs ahead.
  it.each(['before it resumed', 'while it catches up'] as const)('a resuming subscriber sees the turn\'s output after the replayed question and before the reply; turn asked %s', async (when) => {
    const bus = new ScriptedBus('early');
    const resumeFrom = await write('user', 'seen before');
    await write('user', 'context');
    let after = when === 'before it resumed' ? await ask('question') : '';
    const got = recorder();
    // The client reads the first replayed event, then stops reading for a while.
    const resume = got.pause();
    const subscription = await open(bus).subscribe({ org: ORG, topic: TOPIC, after: resumeFrom }, got.sink);
    await until(() => got.seen.length === 2);
    if (when === 'while it catches up') after = await ask('question');

    await runTurn(bus, after, 'answer');
    await settle();
    // The shared feed is past the request and the reply, but this subscriber has not been sent the question yet.
    expect(got.seen).toEqual(['n:context', 'c:context']);
    resume();

    await until(() => got.seen.length >= 2 + TURN.length);
    await settle();
    expect(got.seen).toEqual(['n:context', 'c:context', ...TURN]);
    subscription.close();
  });
});
