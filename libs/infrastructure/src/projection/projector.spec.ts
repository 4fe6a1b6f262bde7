import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { positionToString, SqliteEventStore } from '../event-store';
import { SqliteReadStore } from '../read-store';
import { docId, type Projection } from './projection';
import { Faults, FaultyEventStore, FaultyReadStore } from '../testing/faulty-stores';
import { Projector } from './projector';

/** Two projections off one subscription: `tally` counts every event, `picky` throws on Broken ones. */
function counting(name: string, throwOn?: string): Projection {
  return {
    name,
    version: 1,
    collections: [name],
    indexes: { [name]: ['key'] },
    handle({ event, org, pos }) {
      const key = String(event.data.key);
      if (event.type === throwOn) throw new Error(`${name} cannot take ${key}`);
      if (event.type === 'Quiet') return [];
      return [{ op: 'update', collection: name, id: docId(org, key), pos, update: { $inc: { count: 1 }, $set: { key, _org: org } }, upsert: true }];
    },
  };
}

describe('Projector: a group of projections off one subscription (SQLite stores)', () => {
  let dir: string;
  let events: SqliteEventStore;
  let reads: SqliteReadStore;
  let projector: Projector;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-projector-'));
    events = new SqliteEventStore({ file: join(dir, 'events.db') });
    reads = new SqliteReadStore({ file: join(dir, 'read.db') });
    projector = new Projector(events, reads, [counting('tally'), counting('picky', 'Broken')]);
  });

  afterEach(async () => {
    await projector.stop();
    await events.close();
    await reads.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const append = async (type: string, key: string) => {
    const id = randomUUID();
    const metadata = { org: 'acme', actor: 'users/alice', subject: 'users/alice', correlationId: id, causationId: id, occurredAt: '', schemaVersion: 1 };
    return events.append(`counter-acme:counters/${key}`, [{ id, type, data: { key }, metadata }], 'any');
  };
  const count = async (collection: string, key: string) => (await reads.collection(collection).findOne({ _id: docId('acme', key) }))?.count;
  const caughtUp = async (name: string) => {
    const head = positionToString(await events.headPosition());
    for (let i = 0; i < 400; i++) {
      const cp = await reads.getCheckpoint(name);
      if (cp && positionToString(cp) === head) return;
      await new Promise((r) => setTimeout(r, 5));
    }
    throw new Error(`${name} did not reach ${head}`);
  };

  it('a failure parks the event for that projection only; the other projection and both checkpoints move on', async () => {
    await projector.start();
    await append('Counted', 'a');
    await append('Broken', 'b');
    await append('Counted', 'a');
    await caughtUp('tally');
    await caughtUp('picky');
    expect(await count('tally', 'a')).toBe(2);
    expect(await count('tally', 'b')).toBe(1);
    expect(await count('picky', 'a')).toBe(2);
    expect(await count('picky', 'b')).toBeUndefined();
    const parked = await reads.listParked();
    expect(parked.map((p) => [p.projection, p.eventType, p.error])).toEqual([['picky', 'Broken', 'picky cannot take b']]);
  });

  it('a quiet projection still advances its checkpoint to the head', async () => {
    await projector.start();
    await append('Quiet', 'q');
    await caughtUp('tally');
    await caughtUp('picky');
  });

  it('a projection behind the others catches up from its own checkpoint without re-applying the others', async () => {
    const alone = new Projector(events, reads, [counting('tally')]);
    await alone.start();
    await append('Counted', 'a');
    await append('Counted', 'a');
    await caughtUp('tally');
    await alone.stop();
    // `picky` is new: the group starts from the lowest checkpoint, and `tally` skips what it has.
    await projector.start();
    await caughtUp('picky');
    expect(await count('tally', 'a')).toBe(2);
    expect(await count('picky', 'a')).toBe(2);
  });
});

describe('Projector supervision: store failures are retried, never parked or skipped (SQLite stores behind faults)', () => {
  let dir: string;
  let inner: { events: SqliteEventStore; reads: SqliteReadStore };
  let faults: Faults;
  let events: FaultyEventStore;
  let reads: FaultyReadStore;
  let projector: Projector;
  let log: string[];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-projector-faults-'));
    inner = { events: new SqliteEventStore({ file: join(dir, 'events.db') }), reads: new SqliteReadStore({ file: join(dir, 'read.db') }) };
    faults = new Faults();
    events = new FaultyEventStore(inner.events, faults);
    reads = new FaultyReadStore(inner.reads, faults);
    log = [];
    projector = supervised(50);
  });

  /** The projector under test; `stallMs`: how long it may sit behind the head before its watchdog restarts it. */
  const supervised = (stallMs: number) =>
    new Projector(events, reads, [counting('tally'), counting('picky', 'Broken')], {
      backoff: { initialMs: 1, maxMs: 10 },
      stallMs,
      log: (line) => log.push(line),
    });

  afterEach(async () => {
    await projector.stop();
    await inner.events.close();
    await inner.reads.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const append = async (type: string, key: string) => {
    const id = randomUUID();
    const metadata = { org: 'acme', actor: 'users/alice', subject: 'users/alice', correlationId: id, causationId: id, occurredAt: '', schemaVersion: 1 };
    return inner.events.append(`counter-acme:counters/${key}`, [{ id, type, data: { key }, metadata }], 'any');
  };
  const count = async (collection: string, key: string) => (await inner.reads.collection(collection).findOne({ _id: docId('acme', key) }))?.count;
  /** Waits until both projections reach the head, beating like the projector service does meanwhile. */
  const caughtUp = async () => {
    const head = await inner.events.headPosition();
    for (let i = 0; i < 1000; i++) {
      projector.observe(head);
      const cps = await Promise.all(['tally', 'picky'].map((n) => inner.reads.getCheckpoint(n)));
      if (cps.every((cp) => cp && positionToString(cp) === positionToString(head))) return;
      await new Promise((r) => setTimeout(r, 5));
    }
    throw new Error(`not caught up with ${positionToString(head)}; status ${JSON.stringify(projector.status())}`);
  };

  it('a subscription that cannot open, several times in a row, is retried with the reason logged once per retry', async () => {
    // Five failed opens can take longer than 50 ms on a loaded machine: the stall watchdog, whose
    // restart would add a line of its own, is not what this test is about.
    projector = supervised(60_000);
    faults.failNext('subscribe', 3).failNext('read-checkpoint', 2);
    await append('Counted', 'a');
    await projector.start();
    await caughtUp();
    expect(await count('tally', 'a')).toBe(1);
    expect(log).toHaveLength(5);
    expect(log[0]).toMatch(/attempt 1\): InjectedFault: connection lost \(read-checkpoint\); resubscribing from the checkpoints in \d+ ms/);
    expect(log[4]).toMatch(/attempt 5\): InjectedFault: connection lost \(subscribe\)/);
    const status = projector.status();
    expect(status).toMatchObject({ state: 'live', failingSince: null, retry: null, lastError: { message: 'InjectedFault: connection lost (subscribe)' } });
    expect(status.positions).toEqual({ tally: positionToString(await inner.events.headPosition()), picky: positionToString(await inner.events.headPosition()) });
  });

  it('failed commits (before or after the write), several in a row, park nothing and apply every event exactly once', async () => {
    await projector.start();
    faults.failNext('commit', 4).failNext('commit-after', 2);
    for (let i = 0; i < 5; i++) {
      await append('Counted', 'a');
      await caughtUp();
    }
    // `$inc` counts twice on a double apply; a skipped event would count once less.
    expect(await count('tally', 'a')).toBe(5);
    expect(await count('picky', 'a')).toBe(5);
    expect(await inner.reads.listParked()).toEqual([]);
    expect(faults.injected).toEqual({ commit: 4, 'commit-after': 2 });
  });

  it('a handler that throws still parks its event while commits fail around it', async () => {
    await projector.start();
    faults.failNext('commit', 2).failNext('park', 2);
    await append('Broken', 'b');
    await append('Counted', 'a');
    await caughtUp();
    expect((await inner.reads.listParked()).map((p) => [p.projection, p.eventType])).toEqual([['picky', 'Broken']]);
    expect(await count('picky', 'a')).toBe(1);
    expect(await count('tally', 'b')).toBe(1);
  });

  it('a subscription that ends quietly, or fails mid-stream, is replaced from the checkpoints', async () => {
    await projector.start();
    faults.failNext('subscription-end').failNext('subscription', 2);
    for (let i = 0; i < 4; i++) await append('Counted', 'a');
    await caughtUp();
    expect(await count('tally', 'a')).toBe(4);
    expect(log.some((line) => line.includes('the subscription ended unexpectedly'))).toBe(true);
    expect(faults.injected).toEqual({ 'subscription-end': 1, subscription: 2 });
  });

  it('a subscription that hangs behind the head is replaced, and the status says it stalled meanwhile', async () => {
    await projector.start();
    await append('Counted', 'a');
    await caughtUp();
    expect(projector.status().state).toBe('live');
    faults.failNext('subscription-hang');
    await append('Counted', 'a');
    const head = await inner.events.headPosition();
    const states = new Set<string>();
    for (let i = 0; i < 200 && (await count('tally', 'a')) !== 2; i++) {
      projector.observe(head);
      states.add(projector.status().state);
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(await count('tally', 'a')).toBe(2);
    expect(states).toContain('stalled');
    expect(log.some((line) => /no progress for \d+ s while behind the head/.test(line))).toBe(true);
  });
});
