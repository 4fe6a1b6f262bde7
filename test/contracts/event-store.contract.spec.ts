import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '@svc/infrastructure/sqlite/driver';
import {
  EsdbEventStore,
  EventStore,
  NewEvent,
  RecordedEvent,
  SqliteEventStore,
  START,
  createEventStore,
} from '@svc/infrastructure/event-store';
import { EventStoreFixture, REGISTER_SWC, describeEventStoreContract, waitFor } from './event-store.contract';

interface SqliteFixture extends EventStoreFixture {
  dir: string;
}

async function makeSqlite(): Promise<SqliteFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-event-store-'));
  const file = join(dir, 'events.db');
  return {
    dir,
    store: new SqliteEventStore({ file }),
    // Child processes reach the same file through createEventStore, as the real processes do.
    spawnEnv: { SVC_DATA_DIR: dir },
    openAnother: async () => new SqliteEventStore({ file }),
    fresh: true,
  };
}

async function cleanupSqlite(fixture: EventStoreFixture): Promise<void> {
  await fixture.store.close();
  rmSync((fixture as SqliteFixture).dir, { recursive: true, force: true });
}

describeEventStoreContract('SQLite', makeSqlite, cleanupSqlite);

const esdbUrl = process.env.EVENTSTORE_URL;
if (esdbUrl) {
  describeEventStoreContract(
    'EventStoreDB',
    async () => ({
      store: new EsdbEventStore({ url: esdbUrl }),
      spawnEnv: { EVENTSTORE_URL: esdbUrl, SVC_DATA_DIR: tmpdir() },
      openAnother: async () => new EsdbEventStore({ url: esdbUrl }),
      fresh: false,
    }),
    (fixture) => fixture.store.close(),
  );
}

describe('SqliteEventStore specifics', () => {
  let fixture: SqliteFixture;
  let store: EventStore;
  beforeEach(async () => {
    fixture = await makeSqlite();
    store = fixture.store;
  });
  afterEach(() => cleanupSqlite(fixture));

  const event = (id: string = randomUUID()): NewEvent => ({
    id,
    type: 'ThingHappened',
    data: {},
    metadata: {
      org: 'acme',
      actor: 'users/alice',
      subject: 'things/1',
      correlationId: id,
      causationId: id,
      occurredAt: new Date().toISOString(),
      schemaVersion: 1,
    },
  });

  it('rejects an event id that exists in another stream', async () => {
    const e = event();
    await store.append('thing-acme:a', [e], 'no_stream');
    await expect(store.append('thing-acme:b', [e], 'no_stream')).rejects.toThrow(/already exists in stream thing-acme:a/);
    expect(await store.readStream('thing-acme:b')).toEqual([]);
  });

  it('writes nothing when a later event of the batch collides', async () => {
    const taken = event();
    await store.append('thing-acme:a', [taken], 'no_stream');
    await expect(store.append('thing-acme:b', [event(), taken], 'no_stream')).rejects.toThrow(/already exists/);
    expect(await store.readStream('thing-acme:b')).toEqual([]);
    // The rollback left no trace: the stream still does not exist.
    await store.append('thing-acme:b', [event()], 'no_stream');
  });

  describe('group commit', () => {
    const file = () => join(fixture.dir, 'events.db');

    it('commits the appends of one turn in one transaction: when it fails, every caller fails and nothing is stored', async () => {
      const lone = new SqliteEventStore({ file: file(), busyTimeoutMs: 50 });
      // Another connection holds the write lock past the busy timeout, so the group's BEGIN IMMEDIATE fails.
      const locker = openSqlite(file());
      try {
        locker.exec('BEGIN IMMEDIATE');
        const results = await Promise.allSettled([
          lone.append('thing-acme:a', [event()], 'no_stream'),
          lone.append('thing-acme:b', [event()], 'no_stream'),
          lone.append('thing-acme:c', [event()], 'no_stream'),
        ]);
        locker.exec('ROLLBACK');
        const reasons = results.map((r) => (r.status === 'rejected' ? (r.reason as { code?: string }) : undefined));
        expect(reasons[0]?.code).toBe('SQLITE_BUSY');
        // One attempt for the whole group: the three callers got the same error.
        expect(reasons[1]).toBe(reasons[0]);
        expect(reasons[2]).toBe(reasons[0]);
        expect(await lone.headPosition()).toEqual(START);
        // The store is usable again once the lock is gone.
        expect((await lone.append('thing-acme:a', [event()], 'no_stream')).nextRevision).toBe(0n);
      } finally {
        locker.close();
        await lone.close();
      }
    });

    it('a later append to the same stream in the group sees the earlier one', async () => {
      const [first, second, stale] = await Promise.allSettled([
        store.append('thing-acme:a', [event()], 'no_stream'),
        store.append('thing-acme:a', [event(), event()], 0n),
        store.append('thing-acme:a', [event()], 'no_stream'),
      ]);
      expect(first).toMatchObject({ status: 'fulfilled', value: { nextRevision: 0n } });
      expect(second).toMatchObject({ status: 'fulfilled', value: { nextRevision: 2n } });
      expect(stale).toMatchObject({ status: 'rejected', reason: { expected: 'no_stream', actual: 2n } });
      expect((await store.readStream('thing-acme:a')).map((e) => e.revision)).toEqual([0n, 1n, 2n]);
    });

    it('assigns positions in call order', async () => {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => store.append(`thing-acme:${i}`, [event(), event()], 'no_stream')),
      );
      expect(results.map((r) => r.position.commit)).toEqual(results.map((_, i) => BigInt(2 * i + 2)));
    });

    it('settles a caller only once its append is committed and visible to other connections', async () => {
      const other = new SqliteEventStore({ file: file() });
      try {
        const seenOnResolve = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            store.append(`thing-acme:${i}`, [event()], 'no_stream').then(() => other.readStream(`thing-acme:${i}`)),
          ),
        );
        expect(seenOnResolve.map((es) => es.length)).toEqual(Array(10).fill(1));
      } finally {
        await other.close();
      }
    });

    it('an append whose later event collides rolls back alone (savepoint); the rest of the group commits', async () => {
      const taken = event();
      await store.append('thing-acme:taken', [taken], 'no_stream');
      const results = await Promise.allSettled([
        store.append('thing-acme:a', [event()], 'no_stream'),
        store.append('thing-acme:b', [event(), taken], 'no_stream'),
        store.append('thing-acme:c', [event()], 'no_stream'),
        // Reuses the id that the failed append inserted before its rollback.
        store.append('thing-acme:d', [event()], 'no_stream'),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ message: expect.stringMatching(/already exists/) });
      expect(await store.readStream('thing-acme:b')).toEqual([]);
      // The rollback to the savepoint left no trace of stream b either.
      expect((await store.append('thing-acme:b', [event()], 'no_stream')).nextRevision).toBe(0n);
      expect(await store.readStream('thing-acme:c')).toHaveLength(1);
    });

    it('an event id used twice in one group: the second append fails and leaves no trace, the others are stored', async () => {
      const shared = event();
      const results = await Promise.allSettled([
        store.append('thing-acme:a', [shared], 'no_stream'),
        store.append('thing-acme:b', [shared], 'no_stream'),
        store.append('thing-acme:c', [event()], 'no_stream'),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((results[1] as PromiseRejectedResult).reason).toMatchObject({
        message: expect.stringMatching(/already exists in stream thing-acme:a/),
      });
      // A one-event append runs without a savepoint: its failed insert undid itself.
      expect(await store.readStream('thing-acme:b')).toEqual([]);
      expect((await store.append('thing-acme:b', [event()], 'no_stream')).nextRevision).toBe(0n);
      expect((await store.readStream('thing-acme:c')).map((e) => e.revision)).toEqual([0n]);
    });

    it('an append that cannot be serialized fails alone', async () => {
      const bad = { ...event(), data: { n: 1n } };
      const results = await Promise.allSettled([
        store.append('thing-acme:a', [event()], 'no_stream'),
        store.append('thing-acme:b', [bad], 'no_stream'),
        store.append('thing-acme:c', [event()], 'no_stream'),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    });

    it('stores the events as they were when append() was called', async () => {
      const e = event();
      e.data = { v: 1 };
      const pending = store.append('thing-acme:a', [e], 'no_stream');
      e.data.v = 2;
      await pending;
      expect((await store.readStream('thing-acme:a'))[0].data).toEqual({ v: 1 });
    });

    it('keeps the WAL short under sustained concurrent appends (background checkpoints restart it)', async () => {
      // Checkpoints run on a worker thread, concurrently with the commits; the WAL only restarts when a
      // commit begins with every frame copied back, which the checkpointer arranges by briefly holding writes.
      let next = 0;
      const appender = async (): Promise<void> => {
        while (next < 10_000) {
          const i = next++;
          await store.append(`thing-acme:${i}`, [{ ...event(), data: { i, pad: 'x'.repeat(200) } }], 'no_stream');
        }
      };
      await Promise.all(Array.from({ length: 32 }, appender));
      expect(await store.headPosition()).toEqual({ commit: 10_000n, prepare: 10_000n });
      const walBytes = statSync(`${file()}-wal`).size;
      // About 20 MB here; 55 MB when background checkpoints never restart the WAL.
      expect(walBytes).toBeLessThan(32 * 1024 * 1024);
    }, 30_000);

    it('the checkpoint thread does not keep a process alive, and close() ends it', async () => {
      // Enough events for a background checkpoint (one per 300), so the worker thread exists.
      const script = (close: boolean) => `
        const { SqliteEventStore } = require(${JSON.stringify(join(__dirname, '../../libs/infrastructure/src/event-store'))});
        const store = new SqliteEventStore({ file: ${JSON.stringify(file())} });
        const event = (i) => ({ id: require('node:crypto').randomUUID(), type: 'T', data: { i },
          metadata: { org: 'acme', actor: 'a', subject: 's', correlationId: 'c', causationId: 'c', occurredAt: '', schemaVersion: 1 } });
        Promise.all(Array.from({ length: 1000 }, (_, i) => store.append('thing-acme:' + ${close ? "'c'" : "'n'"} + i, [event(i)], 'no_stream')))
          .then(() => ${close ? "store.close().then(() => console.log('closed'))" : "console.log('left open')"});
      `;
      const run = (close: boolean) =>
        new Promise<{ code: number | null; out: string }>((resolve) => {
          const child = spawn(process.execPath, ['--require', REGISTER_SWC, '-e', script(close)], { stdio: ['ignore', 'pipe', 'inherit'] });
          let out = '';
          child.stdout.on('data', (d: Buffer) => (out += d.toString()));
          const timer = setTimeout(() => child.kill(), 15_000);
          child.on('exit', (code) => {
            clearTimeout(timer);
            resolve({ code, out: out.trim() });
          });
        });
      expect(await run(false)).toEqual({ code: 0, out: 'left open' });
      expect(await run(true)).toEqual({ code: 0, out: 'closed' });
      expect(await store.headPosition()).toEqual({ commit: 2000n, prepare: 2000n });
    }, 40_000);

    it('close() commits the appends already queued', async () => {
      const closing = new SqliteEventStore({ file: file() });
      const pending = closing.append('thing-acme:a', [event()], 'no_stream');
      await closing.close();
      expect((await pending).nextRevision).toBe(0n);
      await expect(closing.append('thing-acme:a', [event()], 0n)).rejects.toThrow(/closed/);
      expect(await store.readStream('thing-acme:a')).toHaveLength(1);
    });
  });

  it('wakes an in-process subscriber on append without waiting for the poll', async () => {
    const file = join(fixture.dir, 'events.db');
    const slow = new SqliteEventStore({ file, pollIntervalMs: 60_000, watchedPollIntervalMs: 60_000 });
    // A second instance on the same file in this process (api + in-process projector) is woken too.
    const writer = new SqliteEventStore({ file });
    try {
      const seen: RecordedEvent[] = [];
      const sub = slow.subscribeToAll({ after: START });
      const done = (async () => {
        for await (const e of sub) seen.push(e);
      })();
      // Let the subscription reach its idle wait (first poll of an empty log).
      await new Promise((r) => setImmediate(r));
      const started = process.hrtime.bigint();
      await slow.append('thing-acme:a', [event()], 'no_stream');
      await waitFor(() => seen.length === 1, 'the same-instance append', 1000);
      await writer.append('thing-acme:a', [event()], 0n);
      await waitFor(() => seen.length === 2, 'the same-file append', 1000);
      expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(1000);
      await sub.unsubscribe();
      await done;
    } finally {
      await writer.close();
      await slow.close();
    }
  });

  it("polls for other processes' appends at the relaxed interval for a relaxed subscription (reactors), still woken at once in process", async () => {
    const file = join(fixture.dir, 'events.db');
    // A watched interval as fast as the unwatched one: this test is about live against relaxed pacing.
    const polled = new SqliteEventStore({ file, pollIntervalMs: 1, watchedPollIntervalMs: 1, relaxedPollIntervalMs: 100 });
    const reads = { live: 0, relaxed: 0 };
    const pageAfter = polled.pageAfter.bind(polled);
    let counting: 'live' | 'relaxed' = 'live';
    polled.pageAfter = (pos) => {
      reads[counting]++;
      return pageAfter(pos);
    };
    try {
      for (const latency of ['live', 'relaxed'] as const) {
        counting = latency;
        const seen: RecordedEvent[] = [];
        const sub = polled.subscribeToAll({ after: await polled.headPosition(), latency });
        const done = (async () => {
          for await (const e of sub) seen.push(e);
        })();
        await new Promise((r) => setTimeout(r, 300));
        await polled.append(`thing-acme:${latency}`, [event()], 'no_stream');
        await waitFor(() => seen.length === 1, `the ${latency} subscription's in-process append`, 50);
        await sub.unsubscribe();
        await done;
      }
      // An idle live subscription reads the log about every millisecond; a relaxed one 3 or 4 times in 300 ms.
      expect(reads.live).toBeGreaterThan(30);
      expect(reads.relaxed).toBeLessThanOrEqual(6);
    } finally {
      await polled.close();
    }
  });

  /** Counts the store's reads of the log for subscriptions (SubscriptionSource.pageAfter). */
  const countLogReads = (store: SqliteEventStore): { reads: number } => {
    const counted = { reads: 0 };
    const pageAfter = store.pageAfter.bind(store);
    store.pageAfter = (pos) => {
      counted.reads++;
      return pageAfter(pos);
    };
    return counted;
  };

  it('an idle live subscription reads the log only at the safety interval while commits are heard, and every 1 ms once they are not', async () => {
    const file = join(fixture.dir, 'events.db');
    const store = new SqliteEventStore({ file });
    const log = countLogReads(store);
    try {
      const seen: RecordedEvent[] = [];
      const sub = store.subscribeToAll({ after: await store.headPosition() });
      const done = (async () => {
        for await (const e of sub) seen.push(e);
      })();
      await new Promise((r) => setTimeout(r, 300));
      // The first read, then the 50 ms safety net: not one read a millisecond.
      expect(log.reads).toBeLessThanOrEqual(1 + 300 / 50 + 1);
      // The marker removed by hand: the watch is lost, and the subscription polls at its fast pace again.
      rmSync(`${file}-commit`);
      await new Promise((r) => setTimeout(r, 50));
      const before = log.reads;
      await new Promise((r) => setTimeout(r, 300));
      expect(log.reads - before).toBeGreaterThan(30);
      await store.append('thing-acme:a', [event()], 'no_stream');
      await waitFor(() => seen.length === 1, 'the append', 1000);
      await sub.unsubscribe();
      await done;
    } finally {
      await store.close();
    }
  });

  /** Appends one event to `streamId` of `file` from a child process (a commit this process only hears through the marker). */
  const appendFromChild = async (file: string, streamId: string): Promise<void> => {
    const script = `
      const { SqliteEventStore } = require(${JSON.stringify(join(__dirname, '../../libs/infrastructure/src/event-store'))});
      const store = new SqliteEventStore({ file: ${JSON.stringify(file)} });
      store.append(${JSON.stringify(streamId)}, [{ id: require('node:crypto').randomUUID(), type: 'T', data: {},
        metadata: { org: 'acme', actor: 'a', subject: 's', correlationId: 'c', causationId: 'c', occurredAt: '', schemaVersion: 1 } }], 'no_stream')
        .then(() => store.close());
    `;
    const child = spawn(process.execPath, ['--require', REGISTER_SWC, '-e', script], { stdio: 'inherit' });
    await new Promise((resolve) => child.on('exit', resolve));
  };

  it('reads the log again after a complete page only when a commit was signalled since, and misses no commit made meanwhile', async () => {
    const file = join(fixture.dir, 'events.db');
    const store = new SqliteEventStore({ file, pollIntervalMs: 60_000, watchedPollIntervalMs: 60_000 });
    const log = countLogReads(store);
    try {
      await store.append('thing-acme:a', [event(), event(), event()], 'no_stream');
      await new Promise((r) => setTimeout(r, 50)); // the echo of this process's own marker is heard before the subscription starts
      const seen: RecordedEvent[] = [];
      const sub = store.subscribeToAll({ after: START });
      const done = (async () => {
        for await (const e of sub) {
          seen.push(e);
          // Another process commits while the subscriber is busy with the page: it is read at once.
          if (seen.length === 1) await appendFromChild(file, 'thing-acme:b');
        }
      })();
      await waitFor(() => seen.length === 4, 'the page and the commit made while it was handled', 5000);
      await new Promise((r) => setTimeout(r, 100));
      // The first page and one for the commit made meanwhile: no empty read before either wait.
      expect(log.reads).toBe(2);
      await appendFromChild(file, 'thing-acme:c');
      await waitFor(() => seen.length === 5, 'a later commit', 5000);
      await new Promise((r) => setTimeout(r, 100));
      expect(log.reads).toBe(3);
      await sub.unsubscribe();
      await done;
    } finally {
      await store.close();
    }
  }, 20_000);

  it("wakes a subscriber when another process appends, long before its poll (the commit marker is watched)", async () => {
    const file = join(fixture.dir, 'events.db');
    const slow = new SqliteEventStore({ file, pollIntervalMs: 60_000, watchedPollIntervalMs: 60_000 });
    try {
      const seen: RecordedEvent[] = [];
      const sub = slow.subscribeToAll({ after: await slow.headPosition() });
      const done = (async () => {
        for await (const e of sub) seen.push(e);
      })();
      await new Promise((r) => setTimeout(r, 50)); // the subscription waits for its 60 s poll
      await appendFromChild(file, 'thing-acme:other-process');
      await waitFor(() => seen.length === 1, "the other process's append", 5000);
      expect(seen[0].streamId).toBe('thing-acme:other-process');
      await sub.unsubscribe();
      await done;
    } finally {
      await slow.close();
    }
  }, 20_000);

  it('close() ends open subscriptions', async () => {
    const other = new SqliteEventStore({ file: join(fixture.dir, 'events.db') });
    const sub = other.subscribeToAll({ after: START });
    const done = (async () => {
      for await (const _ of sub) void _;
    })();
    await other.close();
    await done;
  });

  it('keeps 64-bit revisions and positions as bigints', async () => {
    const r = await store.append('thing-acme:a', [event(), event()], 'no_stream');
    expect(typeof r.nextRevision).toBe('bigint');
    expect(r.position).toEqual({ commit: 2n, prepare: 2n });
    const [e] = await store.readStream('thing-acme:a', { maxCount: 1 });
    expect(typeof e.revision).toBe('bigint');
    expect(typeof e.position.commit).toBe('bigint');
  });

  it('createEventStore makes the data directory and a durable events.db', async () => {
    const dir = join(fixture.dir, 'nested', 'data');
    const created = createEventStore({ SVC_DATA_DIR: dir });
    expect(created).toBeInstanceOf(SqliteEventStore);
    await created.append('thing-acme:a', [event()], 'no_stream');
    await created.close();
    expect(existsSync(join(dir, 'events.db'))).toBe(true);
    const reopened = createEventStore({ SVC_DATA_DIR: dir });
    expect(await reopened.readStream('thing-acme:a')).toHaveLength(1);
    await reopened.close();
  });

  it('createEventStore picks EventStoreDB when EVENTSTORE_URL is set', async () => {
    const esdb = createEventStore({ EVENTSTORE_URL: 'esdb://localhost:2113?tls=false', SVC_DATA_DIR: fixture.dir });
    expect(esdb).toBeInstanceOf(EsdbEventStore);
    await esdb.close();
  });
});
