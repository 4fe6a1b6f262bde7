import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  EsdbEventStore,
  EventStore,
  NewEvent,
  RecordedEvent,
  SqliteEventStore,
  START,
  createEventStore,
} from '@svc/infrastructure/event-store';
import { EventStoreFixture, describeEventStoreContract, waitFor } from './event-store.contract';

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
    // The streams table was rolled back too: the stream still does not exist.
    await store.append('thing-acme:b', [event()], 'no_stream');
  });

  it('wakes an in-process subscriber on append without waiting for the poll', async () => {
    const file = join(fixture.dir, 'events.db');
    const slow = new SqliteEventStore({ file, pollIntervalMs: 60_000 });
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
