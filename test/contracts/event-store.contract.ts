import { ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  AppendResult,
  EventMetadata,
  EventStore,
  NewEvent,
  RecordedEvent,
  START,
  Subscription,
  WrongExpectedRevisionError,
  comparePositions,
  positionToString,
} from '@svc/infrastructure/event-store';
import { eventSize, MAX_APPEND_BYTES } from '@svc/infrastructure/event-store/append-limit';

export interface EventStoreFixture {
  store: EventStore;
  /** Environment for a child process to reach the same store through createEventStore (multi-process tests). */
  spawnEnv?: Record<string, string>;
  /** A second, independent connection to the same store (racing writers). */
  openAnother?: () => Promise<EventStore>;
  /** The store starts empty, so whole-log assertions (head of an empty log, readAll from START) hold. */
  fresh?: boolean;
}

const FIXTURES = join(__dirname, 'fixtures');
/** Reusable: `node --require <REGISTER_SWC> script.ts` runs project TypeScript in a child process. */
export const REGISTER_SWC = join(FIXTURES, 'register-swc.js');
const CHILD = join(FIXTURES, 'event-store-child.ts');

/** Bounded poll for a condition: no fixed sleeps, fails with a clear message instead of hanging. */
export async function waitFor(cond: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

function within<T>(promise: Promise<T>, what: string, timeoutMs = 5000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

interface Child {
  process: ChildProcess;
  lines: Record<string, unknown>[];
  stderr: string[];
  exited: Promise<number | null>;
}

function startChild(args: string[], env: Record<string, string>): Child {
  const child = fork(CHILD, args, {
    execArgv: ['--require', REGISTER_SWC],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const lines: Record<string, unknown>[] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (l) => lines.push(JSON.parse(l) as Record<string, unknown>));
  child.stderr!.on('data', (d: Buffer) => stderr.push(d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { process: child, lines, stderr, exited };
}

async function expectCleanExit(child: Child): Promise<void> {
  const code = await within(child.exited, 'child exit', 10000);
  if (code !== 0) throw new Error(`child exited with ${code}: ${child.stderr.join('')}`);
}

/** Runs a subscription in the background, keeping the events that pass `keep`. */
function collect(sub: Subscription, keep: (e: RecordedEvent) => boolean) {
  const seen: RecordedEvent[] = [];
  const done = (async () => {
    for await (const e of sub) if (keep(e)) seen.push(e);
  })();
  return { seen, done };
}

export function describeEventStoreContract(
  name: string,
  make: () => Promise<EventStoreFixture>,
  cleanup: (fixture: EventStoreFixture) => Promise<void>,
): void {
  describe(`EventStore contract: ${name}`, () => {
    // Unique per run: an EventStoreDB database outlives the test run.
    const run = randomUUID().replace(/-/g, '').slice(0, 12);
    let n = 0;
    /** A fresh stream name in the product's `<category>-<org>:<resource>` shape. */
    const streamName = (label = 'thing') => `contract-${run}:${label}/${++n}`;

    let fixture: EventStoreFixture;
    let store: EventStore;
    const children: Child[] = [];

    beforeEach(async () => {
      fixture = await make();
      store = fixture.store;
    });
    afterEach(async () => {
      for (const c of children.splice(0)) if (c.process.exitCode === null) c.process.kill();
      await cleanup(fixture);
    });

    function metadata(overrides: Partial<EventMetadata> = {}): EventMetadata {
      return {
        org: 'acme',
        actor: 'users/alice',
        subject: 'triggers/nightly',
        requestId: randomUUID(),
        correlationId: randomUUID(),
        causationId: randomUUID(),
        occurredAt: new Date().toISOString(),
        schemaVersion: 1,
        ...overrides,
      };
    }
    function event(type = 'ThingHappened', data: Record<string, unknown> = { n: Math.random() }): NewEvent {
      return { id: randomUUID(), type, data, metadata: metadata() };
    }
    function events(count: number): NewEvent[] {
      return Array.from({ length: count }, (_, i) => event('ThingHappened', { i }));
    }
    async function conflict(p: Promise<unknown>): Promise<WrongExpectedRevisionError> {
      const err: unknown = await p.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(WrongExpectedRevisionError);
      return err as WrongExpectedRevisionError;
    }

    describe('append', () => {
      it('no_stream creates the stream once, then conflicts with the actual revision', async () => {
        const s = streamName();
        const r = await store.append(s, [event()], 'no_stream');
        expect(r.nextRevision).toBe(0n);
        const err = await conflict(store.append(s, [event()], 'no_stream'));
        expect(err).toMatchObject({ streamId: s, expected: 'no_stream', actual: 0n });
        expect(err.message).toBe(`stream ${s}: expected revision no_stream, actual 0`);
        expect(await store.readStream(s)).toHaveLength(1);
      });

      it('an exact revision must equal the last revision', async () => {
        const s = streamName();
        await store.append(s, [event()], 'no_stream');
        expect((await store.append(s, events(2), 0n)).nextRevision).toBe(2n);
        expect(await conflict(store.append(s, [event()], 0n))).toMatchObject({ expected: 0n, actual: 2n });
        expect(await conflict(store.append(s, [event()], 5n))).toMatchObject({ expected: 5n, actual: 2n });
        expect(await conflict(store.append(streamName(), [event()], 0n))).toMatchObject({
          expected: 0n,
          actual: 'no_stream',
        });
        expect((await store.append(s, [event()], 2n)).nextRevision).toBe(3n);
      });

      it('stream_exists requires an existing stream', async () => {
        const s = streamName();
        expect(await conflict(store.append(s, [event()], 'stream_exists'))).toMatchObject({
          streamId: s,
          expected: 'stream_exists',
          actual: 'no_stream',
        });
        await store.append(s, [event()], 'no_stream');
        expect((await store.append(s, [event()], 'stream_exists')).nextRevision).toBe(1n);
      });

      it('any appends whatever the state', async () => {
        const s = streamName();
        expect((await store.append(s, [event()], 'any')).nextRevision).toBe(0n);
        expect((await store.append(s, events(2), 'any')).nextRevision).toBe(2n);
      });

      it('returns the revision and position of the last appended event; positions grow', async () => {
        const s = streamName();
        const r1 = await store.append(s, events(3), 'no_stream');
        const r2 = await store.append(streamName(), [event()], 'no_stream');
        const stored = await store.readStream(s);
        expect(r1.nextRevision).toBe(2n);
        expect(stored[2].position).toEqual(r1.position);
        expect(comparePositions(stored[0].position, stored[1].position)).toBe(-1);
        expect(comparePositions(stored[1].position, stored[2].position)).toBe(-1);
        expect(comparePositions(r1.position, r2.position)).toBe(-1);
      });

      it('round-trips data and metadata on every event', async () => {
        const s = streamName();
        const batch: NewEvent[] = [
          { id: randomUUID(), type: 'ThingCreated', data: { name: 'x', nested: { list: [1, 'two', null] }, ü: '☃' }, metadata: metadata() },
          { id: randomUUID(), type: 'ThingRenamed', data: {}, metadata: metadata({ requestId: undefined, schemaVersion: 2 }) },
        ];
        delete batch[1].metadata.requestId;
        const before = await store.headPosition();
        await store.append(s, batch, 'no_stream');
        const stored = await store.readStream(s);
        expect(stored.map((e) => ({ id: e.id, type: e.type, data: e.data, metadata: e.metadata }))).toEqual(batch);
        expect(stored.map((e) => [e.streamId, e.revision])).toEqual([
          [s, 0n],
          [s, 1n],
        ]);
        for (const e of stored) expect(Number.isNaN(Date.parse(e.created))).toBe(false);
        const all = await store.readAll({ after: before });
        const fromAll = all.filter((e) => e.streamId === s);
        expect(fromAll.map((e) => e.metadata)).toEqual(batch.map((e) => e.metadata));
      });
    });

    describe('append size limit (EventStoreDB maxAppendSize, 1 MiB by default)', () => {
      /** An event whose data pads it to `bytes` as EventStoreDB measures it (data + metadata + 2 x type length). */
      const sized = (bytes: number): NewEvent => {
        const e = event('ThingHappened', { pad: '' });
        const overhead = eventSize(e.type, JSON.stringify(e.data), JSON.stringify(e.metadata));
        return { ...e, data: { pad: 'x'.repeat(bytes - overhead) } };
      };
      const tooLarge = { code: 'INVALID_ARGUMENT', message: expect.stringContaining(`${MAX_APPEND_BYTES}-byte limit`) };

      it('an append over the limit is INVALID_ARGUMENT naming the limit, and writes nothing', async () => {
        const s = streamName();
        const head = await store.headPosition();
        await expect(store.append(s, [sized(MAX_APPEND_BYTES + 1)], 'no_stream')).rejects.toMatchObject(tooLarge);
        expect(await store.readStream(s)).toEqual([]);
        expect(await store.headPosition()).toEqual(head);
      });

      it('the limit is on the whole append: events that fit alone are refused together', async () => {
        const s = streamName();
        const half = MAX_APPEND_BYTES / 2 + 1;
        await expect(store.append(s, [sized(half), sized(half)], 'no_stream')).rejects.toMatchObject(tooLarge);
        expect(await store.readStream(s)).toEqual([]);
        await store.append(s, [sized(half)], 'no_stream');
        expect(await store.readStream(s)).toHaveLength(1);
      });

      it('an append just under the limit is stored whole', async () => {
        const s = streamName();
        const e = sized(MAX_APPEND_BYTES - 1024);
        await store.append(s, [e], 'no_stream');
        expect((await store.readStream(s))[0].data).toEqual(e.data);
      });
    });

    describe('idempotent append', () => {
      it('re-appending the same event ids appends nothing and returns the same result', async () => {
        const s = streamName();
        const batch = events(2);
        const first = await store.append(s, batch, 'no_stream');
        const head = await store.headPosition();
        expect(await store.append(s, batch, 'no_stream')).toEqual(first);
        expect(await store.append(s, batch, 'any')).toEqual(first);
        expect((await store.readStream(s)).map((e) => e.id)).toEqual(batch.map((e) => e.id));
        expect(await store.headPosition()).toEqual(head);
      });

      it('an idempotent append after later events still answers the original result', async () => {
        const s = streamName();
        const batch = events(2);
        const first = await store.append(s, batch, 'no_stream');
        await store.append(s, [event()], 1n);
        expect(await store.append(s, batch, 'no_stream')).toEqual(first);
        expect(await store.readStream(s)).toHaveLength(3);
      });

      it('a batch that only partly matches stored ids fails without writing', async () => {
        const s = streamName();
        const batch = events(2);
        await store.append(s, batch, 'no_stream');
        await expect(store.append(s, [batch[0], event()], 'no_stream')).rejects.toThrow();
        expect(await store.readStream(s)).toHaveLength(2);
      });
    });

    describe('snapshots', () => {
      it('keeps the newest snapshot of a stream per fold; an older revision of the same fold is ignored', async () => {
        const s = streamName('snap');
        await store.append(s, events(3), 'no_stream');
        expect(await store.readSnapshot(s)).toBeNull();
        await store.writeSnapshot(s, { revision: 1n, fold: 'thing:v1', state: '{"n":1}' });
        expect(await store.readSnapshot(s)).toEqual({ revision: 1n, fold: 'thing:v1', state: '{"n":1}' });
        await store.writeSnapshot(s, { revision: 2n, fold: 'thing:v1', state: '{"n":2}' });
        await store.writeSnapshot(s, { revision: 1n, fold: 'thing:v1', state: '{"n":"stale"}' });
        expect(await store.readSnapshot(s)).toEqual({ revision: 2n, fold: 'thing:v1', state: '{"n":2}' });
        // A changed fold's snapshot replaces the old fold's, whatever its revision.
        await store.writeSnapshot(s, { revision: 1n, fold: 'thing:v2', state: '{"m":1}' });
        expect(await store.readSnapshot(s)).toEqual({ revision: 1n, fold: 'thing:v2', state: '{"m":1}' });
        expect(await store.readSnapshot(streamName('other'))).toBeNull();
      });

      it('is never an event: readStream, readAll and subscriptions do not see it', async () => {
        const s = streamName('snap');
        const before = await store.headPosition();
        await store.append(s, events(2), 'no_stream');
        await store.writeSnapshot(s, { revision: 1n, fold: 'thing:v1', state: '{}' });
        const after = await store.append(s, events(1), 1n);
        expect((await store.readStream(s)).map((e) => Number(e.revision))).toEqual([0, 1, 2]);
        const all = await store.readAll({ after: before, maxCount: 100 });
        expect(all.every((e) => e.streamId === s || !e.streamId.includes(s))).toBe(true);
        expect(all.filter((e) => e.streamId.includes(s)).map((e) => e.streamId)).toEqual([s, s, s]);
        const sub = store.subscribeToAll({ after: before });
        const seen: string[] = [];
        for await (const e of sub) {
          if (e.streamId.includes(s)) seen.push(e.streamId);
          if (comparePositions(e.position, after.position) >= 0) break;
        }
        await sub.unsubscribe();
        expect(seen).toEqual([s, s, s]);
      });
    });

    describe('readStream', () => {
      it('reads forwards, backwards, from a revision, with a max count', async () => {
        const s = streamName();
        await store.append(s, events(5), 'no_stream');
        const revs = (es: RecordedEvent[]) => es.map((e) => Number(e.revision));
        expect(revs(await store.readStream(s))).toEqual([0, 1, 2, 3, 4]);
        expect(revs(await store.readStream(s, { fromRevision: 2n }))).toEqual([2, 3, 4]);
        expect(revs(await store.readStream(s, { fromRevision: 1n, maxCount: 2 }))).toEqual([1, 2]);
        expect(revs(await store.readStream(s, { maxCount: 1 }))).toEqual([0]);
        expect(revs(await store.readStream(s, { fromRevision: 9n }))).toEqual([]);
        expect(revs(await store.readStream(s, { direction: 'backwards' }))).toEqual([4, 3, 2, 1, 0]);
        expect(revs(await store.readStream(s, { direction: 'backwards', maxCount: 2 }))).toEqual([4, 3]);
        expect(revs(await store.readStream(s, { direction: 'backwards', fromRevision: 2n, maxCount: 2 }))).toEqual([2, 1]);
        expect(revs(await store.readStream(s, { direction: 'backwards', fromRevision: 0n }))).toEqual([0]);
      });

      it('reads an unknown stream as empty', async () => {
        const s = streamName('unknown');
        expect(await store.readStream(s)).toEqual([]);
        expect(await store.readStream(s, { direction: 'backwards', maxCount: 3 })).toEqual([]);
      });
    });

    describe('readAll', () => {
      it('reads strictly after a position, forwards and backwards, with a max count', async () => {
        const s = streamName();
        await store.append(s, events(5), 'no_stream');
        const p = (await store.readStream(s)).map((e) => e.position);
        const positions = (es: RecordedEvent[]) => es.map((e) => e.position);

        expect(positions(await store.readAll({ after: p[1], maxCount: 2 }))).toEqual([p[2], p[3]]);
        expect(positions(await store.readAll({ after: p[1] }))).toEqual([p[2], p[3], p[4]]);
        expect(positions(await store.readAll({ after: p[4] }))).toEqual([]);
        expect(positions(await store.readAll({ direction: 'backwards', after: p[3], maxCount: 2 }))).toEqual([p[2], p[1]]);
        expect(positions(await store.readAll({ direction: 'backwards', maxCount: 2 }))).toEqual([p[4], p[3]]);
        expect(positions(await store.readAll({ direction: 'backwards', after: START }))).toEqual([]);

        const fromAll = await store.readAll({ after: p[0], maxCount: 1 });
        expect(fromAll[0]).toEqual((await store.readStream(s))[1]);
      });

      it('reads the whole log from START by default', async () => {
        if (!fixture.fresh) return; // a shared server has history from other runs
        const a = await store.append(streamName(), events(2), 'no_stream');
        await store.append(streamName(), events(1), 'no_stream');
        const all = await store.readAll();
        expect(all).toHaveLength(3);
        expect(all[1].position).toEqual(a.position);
        expect((await store.readAll({ maxCount: 2 })).map((e) => e.id)).toEqual(all.slice(0, 2).map((e) => e.id));
      });
    });

    describe('headPosition', () => {
      it('is START for an empty log', async () => {
        if (!fixture.fresh) return;
        expect(await store.headPosition()).toEqual(START);
      });

      it('is the position of the newest event', async () => {
        await store.append(streamName(), events(2), 'no_stream');
        const r = await store.append(streamName(), events(2), 'no_stream');
        expect(await store.headPosition()).toEqual(r.position);
        const [newest] = await store.readAll({ direction: 'backwards', maxCount: 1 });
        expect(newest.position).toEqual(r.position);
      });
    });

    // Appends started without awaiting each other, as the api's concurrent commands do. An adapter may
    // commit them together (SQLite's group commit) but each keeps the semantics of a lone append.
    describe('concurrent appends', () => {
      it('50 appends to distinct streams all succeed and read back in position order', async () => {
        const before = await store.headPosition();
        const appends = Array.from({ length: 50 }, (_, i) => ({ stream: streamName('fan'), batch: events(1 + (i % 3)) }));
        const results = await Promise.all(appends.map((a) => store.append(a.stream, a.batch, 'no_stream')));

        for (const [i, a] of appends.entries()) {
          expect(results[i].nextRevision).toBe(BigInt(a.batch.length - 1));
          const stored = await store.readStream(a.stream);
          expect(stored.map((e) => e.id)).toEqual(a.batch.map((e) => e.id));
          expect(stored[stored.length - 1].position).toEqual(results[i].position);
        }
        const mine = new Set(appends.map((a) => a.stream));
        const all = (await store.readAll({ after: before, maxCount: 1000 })).filter((e) => mine.has(e.streamId));
        expect(all).toHaveLength(appends.reduce((sum, a) => sum + a.batch.length, 0));
        for (let i = 1; i < all.length; i++) expect(comparePositions(all[i - 1].position, all[i].position)).toBe(-1);
        // Each append's events are contiguous in the log and in batch order: appends do not interleave.
        const byStream = new Map<string, string[]>();
        for (const e of all) byStream.set(e.streamId, [...(byStream.get(e.streamId) ?? []), e.id]);
        for (const a of appends) expect(byStream.get(a.stream)).toEqual(a.batch.map((e) => e.id));
        const streamsInLogOrder = all.map((e) => e.streamId).filter((s, i, xs) => i === 0 || xs[i - 1] !== s);
        expect(streamsInLogOrder).toHaveLength(appends.length);
      });

      it('appends to one stream with the same expected revision: exactly one wins, nothing partial', async () => {
        const s = streamName('contend');
        await store.append(s, [event()], 'no_stream');
        const batches = Array.from({ length: 10 }, () => events(3));
        const results = await Promise.allSettled(batches.map((b) => store.append(s, b, 0n)));

        const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
        expect(won).toHaveLength(1);
        for (const r of results) {
          if (r.status === 'rejected') {
            expect(r.reason).toBeInstanceOf(WrongExpectedRevisionError);
            expect(r.reason).toMatchObject({ streamId: s, expected: 0n, actual: 3n });
          }
        }
        const stored = await store.readStream(s);
        expect(stored.slice(1).map((e) => e.id)).toEqual(batches[won[0]].map((e) => e.id));
        expect((results[won[0]] as PromiseFulfilledResult<AppendResult>).value).toEqual({
          nextRevision: 3n,
          position: stored[3].position,
        });
      });

      it('a conflicting append fails alone: the appends around it are stored', async () => {
        const [a, b, c] = [streamName('ok'), streamName('conflict'), streamName('ok')];
        await store.append(b, [event()], 'no_stream');
        const batches = [events(2), events(2), events(2)];
        const results = await Promise.allSettled([
          store.append(a, batches[0], 'no_stream'),
          store.append(b, batches[1], 'no_stream'),
          store.append(c, batches[2], 'no_stream'),
        ]);
        expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
        expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
        expect((await store.readStream(a)).map((e) => e.id)).toEqual(batches[0].map((e) => e.id));
        expect(await store.readStream(b)).toHaveLength(1);
        expect((await store.readStream(c)).map((e) => e.id)).toEqual(batches[2].map((e) => e.id));
      });

      it('an append retried while the first attempt is in flight is idempotent', async () => {
        const s = streamName('retry');
        const batch = events(2);
        const [first, retry] = await Promise.all([store.append(s, batch, 'no_stream'), store.append(s, batch, 'no_stream')]);
        expect(retry).toEqual(first);
        expect((await store.readStream(s)).map((e) => e.id)).toEqual(batch.map((e) => e.id));
      });
    });

    describe('concurrency', () => {
      it('two connections racing on one expected revision: exactly one wins', async () => {
        if (!fixture.openAnother) return;
        const other = await fixture.openAnother();
        try {
          for (let round = 0; round < 10; round++) {
            const s = streamName('race');
            await store.append(s, [event()], 'no_stream');
            const results = await Promise.allSettled([
              store.append(s, [event()], 0n),
              other.append(s, [event()], 0n),
            ]);
            expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
            const lost = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
            expect(lost?.reason).toBeInstanceOf(WrongExpectedRevisionError);
            expect(await store.readStream(s)).toHaveLength(2);
          }
        } finally {
          await other.close();
        }
      });

      it('two processes racing on one stream: exactly one append wins per expected revision', async () => {
        if (!fixture.spawnEnv) return;
        const s = streamName('procrace');
        await store.append(s, [event()], 'no_stream');
        const racers = [startChild(['race', s], fixture.spawnEnv), startChild(['race', s], fixture.spawnEnv)];
        children.push(...racers);
        await waitFor(() => racers.every((c) => c.lines.some((l) => l.ready)), 'children to start', 10000);
        const startAt = Date.now() + 20;
        for (const c of racers) c.process.send({ startAt, stopAt: startAt + 200 });
        await Promise.all(racers.map(expectCleanExit));

        for (const c of racers) c.lines.shift(); // {ready}
        const outcomes = racers.flatMap((c) => c.lines);
        expect(outcomes.every((o) => o.ok || o.conflict)).toBe(true);
        const wins = outcomes.filter((o) => o.ok).map((o) => Number(o.expected));
        const stored = await store.readStream(s);
        // Every success extended the stream by one from the revision it read: no lost update, no duplicate.
        expect(wins.sort((a, b) => a - b)).toEqual(stored.slice(1).map((e) => Number(e.revision) - 1));
        // The processes really overlapped: both tried the same expected revision, and only one won it.
        const tried = racers.map((c) => new Set(c.lines.map((l) => l.expected)));
        const contested = [...tried[0]].filter((r) => tried[1].has(r));
        expect(contested.length).toBeGreaterThan(0);
      }, 20000);
    });

    describe('subscribeToAll', () => {
      it('catches up, then goes live, in order, without duplicates', async () => {
        const prefix = `contract-${run}:sub/${++n}`;
        const mine = (e: RecordedEvent) => e.streamId.startsWith(prefix);
        const before = await store.headPosition();
        const expected: string[] = [];
        const append = async (label: string, batch: NewEvent[]) => {
          await store.append(`${prefix}/${label}`, batch, 'any');
          expected.push(...batch.map((e) => e.id));
        };
        await append('a', events(3));
        await append('b', events(2));

        const sub = store.subscribeToAll({ after: before });
        const { seen, done } = collect(sub, mine);
        await waitFor(() => seen.length >= 5, 'catch-up');

        await append('a', events(1));
        await append('c', events(3));
        await append('b', events(1));
        await waitFor(() => seen.length >= 10, 'live events');
        // One more event proves nothing extra (a duplicate) was delivered before it.
        await append('d', events(1));
        await waitFor(() => seen.length >= 11, 'the last live event');

        expect(seen.map((e) => e.id)).toEqual(expected);
        for (let i = 1; i < seen.length; i++) expect(comparePositions(seen[i - 1].position, seen[i].position)).toBe(-1);
        expect(seen[0].metadata.org).toBe('acme');
        await sub.unsubscribe();
        await within(done, 'the subscription to end');
      });

      it('starts strictly after the given position', async () => {
        const s = streamName('sub');
        await store.append(s, events(4), 'no_stream');
        const stored = await store.readStream(s);
        const sub = store.subscribeToAll({ after: stored[1].position });
        const { seen, done } = collect(sub, (e) => e.streamId === s);
        await waitFor(() => seen.length >= 2, 'events after the checkpoint');
        await store.append(s, [event()], 3n);
        await waitFor(() => seen.length >= 3, 'a live event');
        expect(seen.map((e) => e.revision)).toEqual([2n, 3n, 4n]);
        await sub.unsubscribe();
        await within(done, 'the subscription to end');
      });

      it('unsubscribe ends an idle iteration promptly and delivers nothing more', async () => {
        const s = streamName('unsub');
        const sub = store.subscribeToAll({ after: await store.headPosition() });
        const { seen, done } = collect(sub, (e) => e.streamId === s);
        await store.append(s, [event()], 'no_stream');
        await waitFor(() => seen.length === 1, 'the first event');
        await sub.unsubscribe();
        await within(done, 'the iteration to end', 1000);
        await store.append(s, [event()], 0n);
        expect(seen).toHaveLength(1);
      });

      it('breaking out of the loop ends the subscription', async () => {
        const s = streamName('break');
        await store.append(s, events(3), 'no_stream');
        const stored = await store.readStream(s);
        const sub = store.subscribeToAll({ after: stored[0].position });
        let got: RecordedEvent | undefined;
        for await (const e of sub) {
          got = e;
          break;
        }
        expect(got?.id).toBe(stored[1].id);
        await sub.unsubscribe();
      });

      it('a subscriber in another process sees appended events in order', async () => {
        if (!fixture.spawnEnv) return;
        const prefix = `contract-${run}:proc/${++n}`;
        const before = await store.headPosition();
        const expected: string[] = [];
        const append = async (label: string, batch: NewEvent[]) => {
          await store.append(`${prefix}/${label}`, batch, 'any');
          expected.push(...batch.map((e) => e.id));
        };
        await append('a', events(3));
        const child = startChild(['subscribe', positionToString(before), prefix, '10'], fixture.spawnEnv);
        children.push(child);
        await waitFor(() => child.lines.length >= 3, 'the child to catch up', 10000);

        await append('b', events(2));
        await append('a', events(1));
        await append('c', events(4));
        await expectCleanExit(child);

        expect(child.lines.map((l) => l.id)).toEqual(expected);
        const stored = await store.readAll({ after: before, maxCount: 100 });
        const positions = new Map(stored.map((e) => [e.id, positionToString(e.position)]));
        expect(child.lines.map((l) => l.position)).toEqual(expected.map((id) => positions.get(id)));
      }, 20000);
    });
  });
}
