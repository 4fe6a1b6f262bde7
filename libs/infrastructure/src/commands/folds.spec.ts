/**
 * A command costs the same on the millionth event (issue 17): the fold of a stream is cached per
 * process and snapshotted beside the stream, so a command reads only the events it has not folded.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { accessDecider, type AccessCommand } from '@svc/domain/roles/access.decider';
import type { Actor, Decider } from '@svc/domain/shared/decider';
import type { EventStore, ReadStreamOptions, StoredSnapshot } from '../event-store/event-store.port';
import { SqliteEventStore } from '../event-store/sqlite-event-store';
import { Faults, FaultyEventStore } from '../testing/faulty-stores';
import { CommandService } from './command-service';
import { SNAPSHOT_EVERY } from './folds';

type Counter = { value: number; events: number };
type CounterEvent = { type: 'Incremented'; data: { by: number } };
type CounterCommand = { type: 'Increment'; by: number };

function counter(fold: string | null): Decider<Counter, CounterCommand, CounterEvent> {
  return {
    initialState: () => ({ value: 0, events: 0 }),
    evolve: (s, e) => ({ value: s.value + e.data.by, events: s.events + 1 }),
    decide: (c) => [{ type: 'Incremented', data: { by: c.by } }],
    ...(fold === null ? {} : { snapshot: { fold } }),
  };
}

const actor: Actor = { org: 'acme', actor: 'users/alice', subject: 'users/alice', permissions: [], now: '2026-01-01T00:00:00.000Z' };
const STREAM = 'counter-acme:counters/c';

/** The store, counting the events its readStream hands out. */
function counting(inner: EventStore): { store: EventStore; read: () => number; reset: () => void } {
  let read = 0;
  const readStream = async (id: string, options?: ReadStreamOptions) => {
    const records = await inner.readStream(id, options);
    read += records.length;
    return records;
  };
  // Every other method runs on the real store (its own `this`).
  const store = new Proxy(inner, {
    get: (target, key) => {
      if (key === 'readStream') return readStream;
      const value: unknown = Reflect.get(target, key);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store, read: () => read, reset: () => void (read = 0) };
}

describe('folds: cached and snapshotted', () => {
  let dir: string;
  let sqlite: SqliteEventStore;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folds-'));
    sqlite = new SqliteEventStore({ file: path.join(dir, 'events.db') });
  });
  afterEach(async () => {
    await sqlite.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const send = (service: CommandService, decider: Decider<Counter, CounterCommand, CounterEvent>, by = 1, requestId?: string) =>
    service.handle({ decider, streamId: STREAM, command: { type: 'Increment', by }, context: { actor, requestId } });

  /** Appends n increments straight to the store (fast setup of a long stream). */
  async function seed(n: number): Promise<void> {
    const service = new CommandService(sqlite);
    const decider = counter(null);
    for (let i = 0; i < n; i++) await send(service, decider);
  }

  it('a process reads only the events it has not folded: none of its own, only the tail of another process', async () => {
    const decider = counter(null);
    const { store, read, reset } = counting(sqlite);
    const service = new CommandService(store);
    for (let i = 0; i < 100; i++) await send(service, decider);
    reset();
    const handled = await send(service, decider);
    expect(handled.state).toEqual({ value: 101, events: 101 });
    expect(read()).toBe(0);
    // Another process appends three: this one reads those three, not the stream.
    const other = new CommandService(sqlite);
    for (let i = 0; i < 3; i++) await send(other, decider, 10);
    reset();
    expect((await send(service, decider)).state).toEqual({ value: 132, events: 105 });
    expect(read()).toBe(3);
    expect(await service.stateOf(decider, STREAM)).toEqual({ value: 132, events: 105 });
  });

  it('a conflict with another process reads only the events after the cached revision, then appends', async () => {
    const decider = counter(null);
    const { store, read, reset } = counting(sqlite);
    const service = new CommandService(store);
    await seed(50);
    await send(service, decider);
    const other = new CommandService(sqlite);
    await send(other, decider, 5);
    reset();
    expect((await send(service, decider)).state.value).toBe(57);
    expect(read()).toBe(1);
  });

  it('a cold process reads the snapshot and the events after it, never the whole stream', async () => {
    const decider = counter('counter:1');
    const writer = new CommandService(sqlite);
    for (let i = 0; i < SNAPSHOT_EVERY * 2 + 30; i++) await send(writer, decider);
    const snapshot = (await sqlite.readSnapshot(STREAM)) as StoredSnapshot;
    expect(snapshot.fold).toBe('counter:1');
    expect(snapshot.revision).toBeGreaterThanOrEqual(BigInt(SNAPSHOT_EVERY * 2 - 1));
    const { store, read } = counting(sqlite);
    const cold = new CommandService(store);
    expect((await send(cold, decider)).state).toEqual({ value: SNAPSHOT_EVERY * 2 + 31, events: SNAPSHOT_EVERY * 2 + 31 });
    expect(read()).toBeLessThanOrEqual(SNAPSHOT_EVERY);
  });

  it('a changed fold ignores the snapshots of the old one and folds the stream afresh', async () => {
    const writer = new CommandService(sqlite);
    for (let i = 0; i < SNAPSHOT_EVERY + 10; i++) await send(writer, counter('counter:1'));
    // Version 2 counts double: an old snapshot would give the wrong state.
    const doubled: Decider<Counter, CounterCommand, CounterEvent> = { ...counter('counter:2'), evolve: (s, e) => ({ value: s.value + 2 * e.data.by, events: s.events + 1 }) };
    const { store, read } = counting(sqlite);
    const cold = new CommandService(store);
    expect(await cold.stateOf(doubled, STREAM)).toEqual({ value: 2 * (SNAPSHOT_EVERY + 10), events: SNAPSHOT_EVERY + 10 });
    expect(read()).toBe(SNAPSHOT_EVERY + 10);
  });

  it('a crash between an append and its snapshot loses nothing: the command stands, a cold process folds from the older snapshot', async () => {
    const decider = counter('counter:1');
    const faults = new Faults();
    const faulty = new FaultyEventStore(sqlite, faults);
    faults.failRandomly('write-snapshot', 1);
    const writer = new CommandService(faulty);
    for (let i = 0; i < SNAPSHOT_EVERY + 5; i++) await send(writer, decider);
    expect(await sqlite.readSnapshot(STREAM)).toBeNull();
    expect(await new CommandService(sqlite).stateOf(decider, STREAM)).toEqual({ value: SNAPSHOT_EVERY + 5, events: SNAPSHOT_EVERY + 5 });
  });

  it("a request_id is answered again from the fold, without appending, for the stream's recent requests", async () => {
    const decider = counter('counter:1');
    const service = new CommandService(sqlite);
    await send(service, decider, 1);
    const first = await send(service, decider, 5, 'req-five');
    await send(service, decider, 7);
    // Another process, cold: it learns the request from the stream, then answers it.
    for (const answering of [service, new CommandService(sqlite)]) {
      const again = await send(answering, decider, 5, 'req-five');
      expect(again).toMatchObject({ replayed: true, events: first.events, position: first.position });
      expect(again.state).toEqual({ value: 6, events: 2 });
    }
    expect((await sqlite.readStream(STREAM)).length).toBe(3);
  });

  it('the access aggregate read from its snapshot equals the stream folded from the start', async () => {
    const service = new CommandService(sqlite);
    const config: Actor = { ...actor, actor: 'service-accounts/config', permissions: ['KNOWLEDGE_WRITE', 'ROLES_WRITE'] };
    const access = (command: AccessCommand) => service.handle({ decider: accessDecider, streamId: 'access-acme', command, context: { actor: config } });
    await access({ type: 'InitializeAccess', actor: config });
    await access({ type: 'CreateRole', actor: config, roleId: 'viewer', generated: false, role: { displayName: 'Viewer', permissions: ['KNOWLEDGE_WRITE'] } });
    for (let i = 0; i < SNAPSHOT_EVERY + 20; i++) await access({ type: 'AddMember', actor: config, member: `users/u${i}`, roles: i % 3 === 0 ? ['roles/admin'] : ['roles/viewer'] });
    await access({ type: 'DeleteRole', actor: config, name: 'roles/viewer' });
    expect((await sqlite.readSnapshot('access-acme'))?.fold).toBe('access:1');
    const fromSnapshot = await new CommandService(sqlite).stateOf(accessDecider, 'access-acme');
    const { snapshot: _, ...unsnapshotted } = accessDecider;
    const fromStart = await new CommandService(sqlite).stateOf(unsnapshotted, 'access-acme');
    expect(fromSnapshot).toEqual(fromStart);
    expect(fromSnapshot.adminUsers).toBe(Math.ceil((SNAPSHOT_EVERY + 20) / 3));
  });
});
