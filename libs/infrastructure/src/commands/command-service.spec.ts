import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Actor, Decider } from '@svc/domain/shared/decider';
import { DomainError } from '@svc/domain/shared/domain-error';
import { SqliteEventStore } from '../event-store/sqlite-event-store';
import { type AppendResult, type EventStore, type ExpectedRevision, type NewEvent, WrongExpectedRevisionError } from '../event-store/event-store.port';
import { CommandService } from './command-service';

type Counter = { value: number };
type CounterEvent = { type: 'Incremented'; data: { by: number } };
type CounterCommand = { type: 'Increment'; by: number; max: number };

const counter: Decider<Counter, CounterCommand, CounterEvent> = {
  initialState: () => ({ value: 0 }),
  evolve: (s, e) => ({ value: s.value + e.data.by }),
  decide: (c, s) => {
    if (s.value + c.by > c.max) throw new DomainError('FAILED_PRECONDITION', `would exceed ${c.max}`);
    return c.by === 0 ? [] : [{ type: 'Incremented', data: { by: c.by } }];
  },
};

const actor: Actor = { org: 'acme', actor: 'users/alice', subject: 'users/alice', permissions: [], now: '2026-01-01T00:00:00.000Z' };

describe('CommandService over the SQLite event store', () => {
  let dir: string;
  let store: SqliteEventStore;
  let executor: CommandService;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'executor-'));
    store = new SqliteEventStore({ file: path.join(dir, 'events.db') });
    executor = new CommandService(store);
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const increment = (by: number, requestId?: string, max = 100) =>
    executor.handle({ decider: counter, streamId: 'counter-acme:counters/c', command: { type: 'Increment', by, max }, context: { actor, requestId } });

  it('appends the decided events with the metadata of the command', async () => {
    const result = await increment(2, 'req-1');
    expect(result.state).toEqual({ value: 2 });
    const [event] = await store.readStream('counter-acme:counters/c');
    expect(event.type).toBe('Incremented');
    expect(event.metadata).toMatchObject({ org: 'acme', actor: 'users/alice', subject: 'users/alice', requestId: 'req-1', occurredAt: actor.now, schemaVersion: 1 });
    expect(event.metadata.correlationId).toBeTruthy();
    expect(event.metadata.causationId).toBeTruthy();
  });

  it("an HTTP request's id, carried by its actor, is every event's correlationId (the AIP request_id stays requestId)", async () => {
    await executor.handle({
      decider: counter,
      streamId: 'counter-acme:counters/c',
      command: { type: 'Increment', by: 1, max: 100 },
      context: { actor: { ...actor, correlationId: 'http-7' }, requestId: 'req-2' },
    });
    await increment(1);
    const [inRequest, outside] = await store.readStream('counter-acme:counters/c');
    expect(inRequest.metadata).toMatchObject({ correlationId: 'http-7', requestId: 'req-2' });
    expect(outside.metadata.correlationId).not.toBe('http-7');
  });

  it('a command that decides nothing appends nothing and has no position', async () => {
    const result = await increment(0);
    expect(result.position).toBeNull();
    expect(await store.readStream('counter-acme:counters/c')).toHaveLength(0);
  });

  it('a domain error appends nothing', async () => {
    await expect(increment(500)).rejects.toThrow(/would exceed/);
    expect(await store.readStream('counter-acme:counters/c')).toHaveLength(0);
  });

  it('a retried request_id answers with the state as of that request and appends nothing', async () => {
    const first = await increment(2, 'req-a');
    await increment(3, 'req-b');
    const retry = await increment(2, 'req-a');
    expect(retry.replayed).toBe(true);
    expect(retry.state).toEqual(first.state);
    expect(retry.position).toEqual(first.position);
    expect(await store.readStream('counter-acme:counters/c')).toHaveLength(2);
  });

  it('decides again on the new state after a concurrency conflict', async () => {
    // Another writer slips an event in between this executor's read and its append, once.
    let interfere = true;
    const racing: EventStore = Object.create(store) as EventStore;
    racing.append = async (stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> => {
      if (interfere) {
        interfere = false;
        await new CommandService(store).handle({ decider: counter, streamId: stream, command: { type: 'Increment', by: 95, max: 100 }, context: { actor } });
      }
      return store.append(stream, events, expected);
    };
    const result = new CommandService(racing).handle({
      decider: counter,
      streamId: 'counter-acme:counters/c',
      command: { type: 'Increment', by: 10, max: 100 },
      context: { actor },
    });
    // Re-decided against value 95: the rule now refuses.
    await expect(result).rejects.toThrow(/would exceed 100/);
    expect((await store.readStream('counter-acme:counters/c')).map((e) => e.data)).toEqual([{ by: 95 }]);
  });

  it('gives up with ABORTED when every attempt conflicts', async () => {
    const busy: EventStore = Object.create(store) as EventStore;
    busy.append = async (stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> => {
      await store.append(stream, [{ ...events[0], id: crypto.randomUUID() }], 'any');
      return store.append(stream, events, expected);
    };
    const attempt = new CommandService(busy).handle({
      decider: counter,
      streamId: 'counter-acme:counters/c',
      command: { type: 'Increment', by: 1, max: 1000 },
      context: { actor },
    });
    await expect(attempt).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('an optimistic create that finds the stream taken decides against the existing history', async () => {
    await increment(1);
    const create = executor.handle({
      decider: counter,
      streamId: 'counter-acme:counters/c',
      command: { type: 'Increment', by: 100, max: 100 },
      context: { actor },
      create: true,
    });
    await expect(create).rejects.toThrow(/would exceed/);
  });
  it('a dry run decides on the stored state (even for a create) and appends nothing', async () => {
    await increment(60);
    const run = (by: number) =>
      executor.handle({
        decider: counter,
        streamId: 'counter-acme:counters/c',
        command: { type: 'Increment', by, max: 100 },
        context: { actor },
        create: true,
        dryRun: true,
      });
    const check = await run(10);
    expect(check).toMatchObject({ state: { value: 60 }, position: null, events: [{ type: 'Incremented', data: { by: 10 } }] });
    await expect(run(50)).rejects.toThrow(/would exceed/);
    expect(await store.readStream('counter-acme:counters/c')).toHaveLength(1);
    expect(await executor.stateOf(counter, 'counter-acme:counters/c')).toEqual({ value: 60 });
    expect(await executor.stateOf(counter, 'counter-acme:counters/none')).toEqual({ value: 0 });
  });

  it('completes the command with facts read for the state of each attempt', async () => {
    let interfere = true;
    const racing: EventStore = Object.create(store) as EventStore;
    racing.append = async (stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> => {
      if (interfere) {
        interfere = false;
        await increment(90);
      }
      return store.append(stream, events, expected);
    };
    const seen: number[] = [];
    await new CommandService(racing).handle({
      decider: counter,
      streamId: 'counter-acme:counters/c',
      command: { type: 'Increment', by: 0, max: 0 },
      context: { actor },
      // The fact here: the room left under 100, as of the state being decided on.
      complete: async (command, state) => {
        seen.push(state.value);
        return { ...command, by: Math.min(5, 100 - state.value), max: 100 };
      },
    });
    expect(seen).toEqual([0, 90]);
    expect((await store.readStream('counter-acme:counters/c')).map((e) => e.data)).toEqual([{ by: 90 }, { by: 5 }]);
  });

  describe('per-stream queue', () => {
    /** The store, counting the appends refused for a stale expected revision. */
    const counting = () => {
      const counted = Object.create(store) as EventStore & { conflicts: number };
      counted.conflicts = 0;
      counted.append = async (stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> => {
        try {
          return await store.append(stream, events, expected);
        } catch (error) {
          if (error instanceof WrongExpectedRevisionError) counted.conflicts += 1;
          throw error;
        }
      };
      return counted;
    };

    it('runs concurrent commands of one executor on one stream one after another: no conflict, all succeed', async () => {
      const counted = counting();
      const hot = new CommandService(counted);
      const results = await Promise.allSettled(
        Array.from({ length: 64 }, () =>
          hot.handle({ decider: counter, streamId: 'counter-acme:counters/hot', command: { type: 'Increment', by: 1, max: 1000 }, context: { actor } }),
        ),
      );
      expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
      expect(counted.conflicts).toBe(0);
      expect(await hot.stateOf(counter, 'counter-acme:counters/hot')).toEqual({ value: 64 });
      expect(hot.busyStreams).toBe(0);
    });

    it('runs commands on different streams concurrently', async () => {
      // The read of stream a is held until stream b's command has run: serialized across streams, it never would.
      let releaseA!: () => void;
      const aHeld = new Promise<void>((resolve) => (releaseA = resolve));
      const gated = Object.create(store) as EventStore;
      gated.readStream = async (stream: string) => {
        if (stream.endsWith('/a')) await aHeld;
        return store.readStream(stream);
      };
      gated.append = (stream: string, events: NewEvent[], expected: ExpectedRevision) => store.append(stream, events, expected);
      const both = new CommandService(gated);
      const run = (name: string) =>
        both.handle({ decider: counter, streamId: `counter-acme:counters/${name}`, command: { type: 'Increment', by: 1, max: 10 }, context: { actor } });
      const a = run('a');
      await expect(run('b')).resolves.toMatchObject({ state: { value: 1 } });
      expect(both.busyStreams).toBe(1);
      releaseA();
      await expect(a).resolves.toMatchObject({ state: { value: 1 } });
      expect(both.busyStreams).toBe(0);
    });

    it('goes on with the next command of a stream after one fails', async () => {
      const results = await Promise.allSettled([increment(5, undefined, 10), increment(50, undefined, 10), increment(5, undefined, 10)]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(await executor.stateOf(counter, 'counter-acme:counters/c')).toEqual({ value: 10 });
      expect(executor.busyStreams).toBe(0);
    });
  });
});
