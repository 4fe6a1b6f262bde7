import { Readable } from 'node:stream';
import { convertToCommandError, type EventStoreDBClient, MaxAppendSizeExceededError, NotLeaderError } from '@eventstore/db-client';
import { storeUnavailable } from '../stores/store-unavailable';
import { MAX_APPEND_BYTES } from './append-limit';
import { EsdbEventStore } from './esdb-event-store';

/** What the client's readAll yields for one stored JSON event at log position `n`. */
const resolved = (n: number) => ({
  event: {
    id: `e${n}`,
    streamId: 'thing-acme:a',
    revision: BigInt(n),
    position: { commit: BigInt(n), prepare: BigInt(n) },
    type: 'ThingHappened',
    data: { n },
    metadata: { org: 'acme' },
    created: new Date(0),
    isJson: true,
  },
});

/** A stand-in for the client's StreamingRead: a readable of `count` events that records its cancellation. */
function streamingRead(count: number) {
  const read = Readable.from((function* () {
    for (let n = 1; n <= count; n++) yield resolved(n);
  })()) as Readable & { cancel: jest.Mock };
  read.cancel = jest.fn(async () => undefined);
  return read;
}

describe('EsdbEventStore (client stand-in)', () => {
  it('cancels a readAll it leaves early, so the gRPC call does not stay open', async () => {
    const read = streamingRead(100);
    const client = { readAll: jest.fn(() => read) } as unknown as EventStoreDBClient;
    const events = await new EsdbEventStore({ client }).readAll({ maxCount: 3 });
    expect(events.map((e) => e.id)).toEqual(['e1', 'e2', 'e3']);
    expect(read.cancel).toHaveBeenCalledTimes(1);
  });

  it('does not cancel a read that ran to its end', async () => {
    const read = streamingRead(5);
    const client = { readAll: jest.fn(() => read) } as unknown as EventStoreDBClient;
    expect(await new EsdbEventStore({ client }).readAll({ maxCount: 10 })).toHaveLength(5);
    expect(read.cancel).not.toHaveBeenCalled();
  });

  it('refuses an append over the limit before sending it, and maps the server refusal alike', async () => {
    const appendToStream = jest.fn();
    const store = new EsdbEventStore({ client: { appendToStream } as unknown as EventStoreDBClient });
    const metadata = { org: 'acme', actor: 'a', subject: 's', correlationId: 'c', causationId: 'c', occurredAt: '', schemaVersion: 1 };
    const big = { id: 'e1', type: 'ThingHappened', data: { pad: 'x'.repeat(MAX_APPEND_BYTES) }, metadata };
    await expect(store.append('thing-acme:a', [big], 'any')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('1048576-byte limit') });
    expect(appendToStream).not.toHaveBeenCalled();

    // A server configured below the default answers MaxAppendSizeExceeded: the same INVALID_ARGUMENT.
    appendToStream.mockRejectedValueOnce(new MaxAppendSizeExceededError(undefined, 4096));
    const small = { ...big, data: { pad: 'x'.repeat(5000) } };
    await expect(store.append('thing-acme:a', [small], 'any')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('4096-byte limit') });
  });
});

describe('EsdbEventStore on a follower (NotLeader)', () => {
  /** What the client throws when the node it asked is not the leader: the server's NotFound with the leader named in the trailers. */
  const notLeader = () =>
    convertToCommandError(
      Object.assign(new Error('5 NOT_FOUND: Leader info available'), {
        code: 5,
        details: 'Leader info available',
        metadata: { getMap: () => ({ exception: 'not-leader', 'leader-endpoint-host': '10.0.0.2', 'leader-endpoint-port': '2113' }) },
      }),
    );
  const metadata = { org: 'acme', actor: 'a', subject: 's', correlationId: 'c', causationId: 'c', occurredAt: '', schemaVersion: 1 };
  const event = { id: '3f0e8a56-6b1e-4d61-9a39-3f6c2f9b8a11', type: 'ThingHappened', data: { n: 1 }, metadata };
  const position = { commit: 7n, prepare: 7n };

  it('retries an append once, with the same events, after the client has reconnected to the leader', async () => {
    const appendToStream = jest.fn().mockRejectedValueOnce(notLeader()).mockResolvedValueOnce({ success: true, nextExpectedRevision: 0n, position });
    const store = new EsdbEventStore({ client: { appendToStream } as unknown as EventStoreDBClient });
    await expect(store.append('thing-acme:a', [event], 'no_stream')).resolves.toEqual({ nextRevision: 0n, position });
    expect(appendToStream).toHaveBeenCalledTimes(2);
    expect(appendToStream.mock.calls[1][1]).toBe(appendToStream.mock.calls[0][1]);
  });

  it('a second NotLeader goes to the caller, which answers UNAVAILABLE', async () => {
    const appendToStream = jest.fn().mockRejectedValue(notLeader());
    const store = new EsdbEventStore({ client: { appendToStream } as unknown as EventStoreDBClient });
    const failure = await store.append('thing-acme:a', [event], 'no_stream').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(NotLeaderError);
    expect(appendToStream).toHaveBeenCalledTimes(2);
    expect(storeUnavailable(failure)).toMatchObject({ code: 'UNAVAILABLE', metadata: { fault: 'not-leader' } });
  });

  it('retries a read once', async () => {
    const failing = new Readable({ read() {} }) as Readable & { cancel: jest.Mock };
    failing.cancel = jest.fn(async () => undefined);
    failing.destroy(notLeader());
    const readAll = jest.fn().mockReturnValueOnce(failing).mockReturnValueOnce(streamingRead(2));
    const events = await new EsdbEventStore({ client: { readAll } as unknown as EventStoreDBClient }).readAll({ maxCount: 10 });
    expect(events.map((e) => e.id)).toEqual(['e1', 'e2']);
    expect(readAll).toHaveBeenCalledTimes(2);
  });
});
