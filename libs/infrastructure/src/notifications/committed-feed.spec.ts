import { mkdtempSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore, type Position } from '../event-store';
import { Faults, FaultyEventStore } from '../testing/faulty-stores';
import { CommittedFeed, followCommitted, type CommittedBatch } from './committed-feed';
import { committedNotifications } from './session-notification-stream';

const HOST = 'example.test';
const activity = (text: string) => ({ '@type': `${HOST}/svc.nxagent.v1.Activity`, user: { text: { text } } });

describe('committed notifications', () => {
  let dir: string;
  let store: SqliteEventStore;
  let feed: CommittedFeed;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-feed-'));
    store = new SqliteEventStore({ file: join(dir, 'events.db') });
    feed = new CommittedFeed(store, (e) => committedNotifications(e, HOST));
  });
  afterEach(async () => {
    await feed.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const write = async (org: string, session: string, texts: string[], firstOffset = 0): Promise<Position> => {
    const stream = `session-${org}:agents/a/sessions/${session}`;
    const expected = 'any' as const;
    const result = await store.append(
      stream,
      [
        {
          id: randomUUID(),
          type: 'SessionMessagesWritten',
          data: { firstOffset, messages: texts.map(activity), writeMode: 'WRITE_MODE_CHECKPOINT', author: 'user', writeTime: new Date().toISOString() },
          metadata: { org, actor: 'users/alice', subject: 'users/alice', correlationId: 'c', causationId: 'c', occurredAt: new Date().toISOString(), schemaVersion: 1 },
        },
      ],
      expected,
    );
    return result.position;
  };
  const texts = (batches: CommittedBatch[]) =>
    batches.flatMap((b) => b.notifications.filter((n) => String(n.notification.value && (n.notification.value as { '@type': string })['@type']).endsWith('Activity')).map((n) => ((n.notification.value as { user: { text: { text: string } } }).user.text.text)));
  const until = async (cond: () => boolean) => {
    const deadline = Date.now() + 5000;
    while (!cond()) {
      if (Date.now() > deadline) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 5));
    }
  };

  it('maps each message to an ActivityNotification (0-based offset, inner Any) then the bare Activity, on the session topic', async () => {
    const [event] = await (async () => {
      await write('acme', 's1', ['a', 'b'], 3);
      return store.readAll();
    })();
    expect(committedNotifications(event, HOST)).toEqual([
      { org: 'acme', topic: 'agents/a/sessions/s1', notification: { value: { '@type': `${HOST}/svc.nxagent.v1.ActivityNotification`, sessionOffset: 3, activity: activity('a') } } },
      { org: 'acme', topic: 'agents/a/sessions/s1', notification: { value: activity('a') } },
      { org: 'acme', topic: 'agents/a/sessions/s1', notification: { value: { '@type': `${HOST}/svc.nxagent.v1.ActivityNotification`, sessionOffset: 4, activity: activity('b') } } },
      { org: 'acme', topic: 'agents/a/sessions/s1', notification: { value: activity('b') } },
    ]);
  });

  it('replays what was missed after a position, then continues live, nothing skipped or repeated, org and topic filtered', async () => {
    await write('acme', 's1', ['before']);
    const resumeFrom = await write('acme', 's1', ['seen'], 1);
    await write('acme', 's1', ['missed 1'], 2);
    await write('globex', 's1', ['other org']);
    await write('acme', 's2', ['other topic']);
    await write('acme', 's1', ['missed 2'], 3);
    const got: CommittedBatch[] = [];
    let caughtUpAt: Position | undefined;
    const sub = await followCommitted(feed, { org: 'acme', topic: 'agents/a/sessions/s1', after: resumeFrom }, {
      replayed: async (b) => {
        got.push(b);
        // While the replay waits on a slow client, new events arrive: held, then delivered after.
        if (got.length === 1) await write('acme', 's1', ['during'], 4);
      },
      live: (b) => got.push(b),
      caughtUp: (p) => (caughtUpAt = p),
      overflow: () => {
        throw new Error('no overflow expected');
      },
    });
    await sub.caughtUp;
    expect(caughtUpAt).toBeDefined();
    await write('acme', 's1', ['live'], 5);
    await until(() => texts(got).includes('live'));
    expect(texts(got)).toEqual(['missed 1', 'missed 2', 'during', 'live']);
    const positions = got.map((b) => b.position.commit);
    expect([...positions].sort((a, b) => (a < b ? -1 : 1))).toEqual(positions);
    sub.close();
    expect(feed.listenerCount).toBe(0);
    expect(feed.isSubscribed).toBe(false);
  });

  it('without a position, only what is committed after following', async () => {
    await write('acme', 's1', ['old']);
    const got: CommittedBatch[] = [];
    const sub = await followCommitted(feed, { org: 'acme' }, { replayed: async () => undefined, live: (b) => got.push(b), caughtUp: () => undefined, overflow: () => undefined });
    await write('acme', 's1', ['new'], 1);
    await until(() => got.length === 1);
    expect(texts(got)).toEqual(['new']);
    sub.close();
  });
  it('reports how far it has delivered, after the listeners got the event, including events of other organizations', async () => {
    const batches: CommittedBatch[] = [];
    const seenAtProgress: number[] = [];
    const handle = await feed.follow('acme', undefined, (b) => batches.push(b));
    expect(feed.hasDelivered(handle.startedAt)).toBe(true);
    const stop = feed.onProgress(() => seenAtProgress.push(batches.length));
    const own = await write('acme', 's1', ['hello']);
    expect(feed.hasDelivered(own)).toBe(false);
    await until(() => feed.hasDelivered(own));
    // The batch was out before the feed counted its event as delivered.
    expect(batches).toHaveLength(1);
    expect(seenAtProgress[seenAtProgress.length - 1]).toBe(1);
    const other = await write('globex', 's2', ['elsewhere']);
    await until(() => feed.hasDelivered(other));
    expect(batches).toHaveLength(1);
    stop();
    handle.close();
    expect(feed.hasDelivered(other)).toBe(false); // not running: nothing is known delivered
  });

  it('survives store faults: a failed or ended subscription is resumed after the last delivered event, nothing skipped or repeated', async () => {
    const faults = new Faults();
    const seen: string[] = [];
    const resilient = new CommittedFeed(new FaultyEventStore(store, faults), (e) => committedNotifications(e, HOST), undefined, (reason) => seen.push(reason));
    const got: CommittedBatch[] = [];
    const handle = await resilient.follow('acme', undefined, (b) => got.push(b));
    try {
      await write('acme', 's1', ['one']);
      await until(() => texts(got).length === 1);
      // The next event's delivery fails (a server restart), then the store ends the subscription.
      faults.failNext('subscription');
      await write('acme', 's1', ['two'], 1);
      await until(() => texts(got).length === 2);
      faults.failNext('subscription-end');
      await write('acme', 's1', ['three'], 2);
      await write('acme', 's1', ['four'], 3);
      await until(() => texts(got).length === 4);
      expect(texts(got)).toEqual(['one', 'two', 'three', 'four']);
      expect(seen).toEqual([expect.stringContaining('connection lost'), 'the store ended the subscription']);
    } finally {
      handle.close();
      await resilient.close();
    }
  });
});
