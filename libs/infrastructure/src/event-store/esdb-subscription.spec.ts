/**
 * The EventStoreDB subscription loop against a fake of the client's subscription (an async iterator
 * of resolved events, as @eventstore/db-client yields them): no server runs here (issue 18).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { EventStoreDBClient } from '@eventstore/db-client';
import { EsdbEventStore } from './esdb-event-store';
import { START } from './event-store.port';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A subscription that yields `count` events (each with a 1 KiB payload), then waits like a live one. */
function fakeClient(count: number): { client: EventStoreDBClient; unsubscribed: () => boolean } {
  let unsubscribed = false;
  const client = {
    subscribeToAll: () => {
      let i = 0;
      return {
        [Symbol.asyncIterator]: () => ({
          next: async () => {
            if (i >= count) return new Promise(() => undefined); // caught up: nothing more until the server sends
            i++;
            const n = BigInt(i);
            return {
              done: false,
              value: {
                event: {
                  id: `e${i}`,
                  streamId: 'note-acme:notes/n',
                  revision: n,
                  position: { commit: n, prepare: n },
                  type: 'NoteUpdated',
                  isJson: true,
                  data: { payload: 'x'.repeat(1024), i },
                  metadata: { org: 'acme' },
                  created: new Date(0),
                },
              },
            };
          },
        }),
        unsubscribe: async () => {
          unsubscribed = true;
        },
      };
    },
  } as unknown as EventStoreDBClient;
  return { client, unsubscribed: () => unsubscribed };
}

describe('EventStoreDB subscription loop', () => {
  it('keeps no event it delivered: 300,000 events through the loop retain a bounded heap', async () => {
    const count = 300_000;
    const { client } = fakeClient(count);
    const sub = new EsdbEventStore({ client }).subscribeToAll({ after: START });
    gc();
    const before = process.memoryUsage().heapUsed;
    let seen = 0;
    for await (const event of sub) {
      seen++;
      if (event.revision === BigInt(count)) break;
    }
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    expect(seen).toBe(count);
    // Kept, 300,000 events of over 1 KiB each would be several hundred MiB.
    expect(grown).toBeLessThan(32 * 1024 * 1024);
  }, 60_000);

  it('unsubscribe ends a subscription that is waiting for the next event', async () => {
    const { client, unsubscribed } = fakeClient(2);
    const sub = new EsdbEventStore({ client }).subscribeToAll({ after: START });
    const seen: bigint[] = [];
    const loop = (async () => {
      for await (const event of sub) seen.push(event.revision);
    })();
    while (seen.length < 2) await new Promise((r) => setImmediate(r));
    await sub.unsubscribe();
    await loop;
    expect(seen).toEqual([1n, 2n]);
    expect(unsubscribed()).toBe(true);
  });
});
