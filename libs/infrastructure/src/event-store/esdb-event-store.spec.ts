import { Readable } from 'node:stream';
import { type EventStoreDBClient, MaxAppendSizeExceededError } from '@eventstore/db-client';
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
