import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Actor } from '@svc/domain/shared/decider';
import { noteSpec } from '@svc/domain/notes/note.resource';
import { resourceStreamId, type ResourceCommand } from '@svc/domain/shared/resource';
import { resourceDecider } from '@svc/domain/shared/resource.decider';
import { CommandService } from '@svc/infrastructure/commands/command-service';
import { positionToString, SqliteEventStore } from '@svc/infrastructure/event-store';
import { docId, type Projection } from '@svc/infrastructure/projection/projection';
import { Projector } from '@svc/infrastructure/projection/projector';
import { SqliteReadStore } from '@svc/infrastructure/read-store';
import type { Doc } from '@svc/infrastructure/read-store/read-store.port';
import { Faults, FaultyEventStore, FaultyReadStore, InjectedFault, seeded } from '@svc/infrastructure/testing/faulty-stores';
import { PROJECTIONS } from '@svc/application/areas';
import { sleep } from './support/harness';

/**
 * Counts every event per stream with `$inc`, which only the projector's position guard keeps from
 * counting a re-delivered event twice: a count equal to the stream's length is "applied exactly once".
 */
const tally: Projection = {
  name: 'tally',
  version: 1,
  collections: ['tally'],
  indexes: {},
  handle: ({ record, org, pos }) => [
    { op: 'update', collection: 'tally', id: docId(org, record.streamId), pos, update: { $inc: { events: 1 }, $set: { _org: org } }, upsert: true },
  ],
};

const notes = resourceDecider(noteSpec);
const actor = (): Actor => ({ org: 'acme', actor: 'users/alice', subject: 'users/alice', permissions: [], now: new Date().toISOString() });

/**
 * The real projector (every projection of apps/projector plus `tally`) on the real SQLite stores
 * behind a fault-injecting wrapper: appends, stream reads, subscriptions (failing, ending quietly,
 * hanging) and commits (before and after the write) fail, in bursts, while commands are written.
 * Afterwards nothing is parked, nothing lost, nothing applied twice, and the read models equal a
 * fresh rebuild from the same log.
 */
describe('projector under store faults (real projections, real SQLite stores behind faults)', () => {
  let dir: string;
  let inner: { events: SqliteEventStore; reads: SqliteReadStore };
  let faults: Faults;
  let projector: Projector;
  const retries: string[] = [];
  const seed = Math.floor(Math.random() * 2 ** 31);

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-projector-faults-'));
    inner = { events: new SqliteEventStore({ file: join(dir, 'events.db') }), reads: new SqliteReadStore({ file: join(dir, 'read.db') }) };
    faults = new Faults(seeded(seed));
  });
  afterAll(async () => {
    await projector?.stop();
    await inner.events.close();
    await inner.reads.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`loses nothing, parks nothing, applies each event once, and matches a rebuild (seed ${seed})`, async () => {
    const events = new FaultyEventStore(inner.events, faults);
    const reads = new FaultyReadStore(inner.reads, faults);
    projector = new Projector(events, reads, [...PROJECTIONS, tally], {
      backoff: { initialMs: 1, maxMs: 20 },
      stallMs: 300,
      log: (line) => retries.push(line),
    });
    faults
      .failRandomly('append', 0.05, 3)
      .failRandomly('append-after', 0.03)
      .failRandomly('read-stream', 0.03, 2)
      .failRandomly('subscribe', 0.3, 3)
      .failRandomly('read-checkpoint', 0.01, 3)
      .failRandomly('subscription', 0.01, 2)
      .failRandomly('subscription-end', 0.005)
      .failRandomly('subscription-hang', 0.002)
      .failRandomly('commit', 0.1, 4)
      .failRandomly('commit-after', 0.05, 2);
    // Bursts that surely happen, whatever the random draws: the first commits and subscriptions fail.
    faults.failNext('commit', 5).failNext('subscribe', 3);
    await projector.start();

    const executor = new CommandService(events);
    const expected = new Map<string, { displayName: string; deleted: boolean }>();
    /** A client retrying a failed call with the same request_id, as AIP-155 lets it. */
    const call = async (name: string, command: ResourceCommand, requestId: string) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await executor.handle({
            decider: notes,
            streamId: resourceStreamId(noteSpec, 'acme', name),
            command,
            context: { actor: command.actor, requestId },
            create: command.type === 'Create',
          });
        } catch (error) {
          if (!(error instanceof InjectedFault) || attempt > 50) throw error;
        }
      }
    };
    const N = 150;
    let next = 0;
    const writer = async () => {
      while (next < N) {
        const i = next++;
        // Halfway, lost acknowledgements of commits and a subscription that fails, then ends quietly.
        if (i === N / 2) faults.failNext('commit-after', 2).failNext('subscription', 3).failNext('subscription-end');
        const name = `notes/f-${i}`;
        await call(name, { type: 'Create', actor: actor(), id: `f-${i}`, resource: { displayName: `fault ${i}` } }, `c-${i}`);
        expected.set(name, { displayName: `fault ${i}`, deleted: false });
        if (i % 3 === 0) {
          await call(name, { type: 'Update', actor: actor(), name, resource: { displayName: `fault ${i} v2` }, scope: { paths: ['displayName'] } }, `u-${i}`);
          expected.set(name, { displayName: `fault ${i} v2`, deleted: false });
        }
        if (i % 5 === 0) {
          await call(name, { type: 'Delete', actor: actor(), name }, `d-${i}`);
          expected.set(name, { ...expected.get(name)!, deleted: true });
        }
        // Interleave the writers with the projector's pages.
        if (i % 10 === 0) await sleep(1);
      }
    };
    await Promise.all(Array.from({ length: 8 }, writer));

    // The projector catches up through the faults (beating as the projector service does).
    const head = await inner.events.headPosition();
    const names = [...PROJECTIONS, tally].map((p) => p.name);
    for (let i = 0; ; i++) {
      projector.observe(head);
      const checkpoints = await Promise.all(names.map((n) => inner.reads.getCheckpoint(n)));
      if (checkpoints.every((cp) => cp && positionToString(cp) === positionToString(head))) break;
      if (i > 4000) throw new Error(`not caught up with ${positionToString(head)}: ${JSON.stringify(projector.status())}`);
      await sleep(5);
    }
    // A failure reported after the last commit landed still has the projector retrying: let it settle.
    faults.heal();
    for (let i = 0; projector.status().state !== 'live'; i++) {
      if (i > 2000) throw new Error(`not live: ${JSON.stringify(projector.status())}`);
      projector.observe(head);
      await sleep(5);
    }

    // The faults did happen, at every point, and each retry was logged once with its reason.
    const points = ['append', 'append-after', 'read-stream', 'subscribe', 'subscription', 'subscription-end', 'commit', 'commit-after'] as const;
    for (const point of points) {
      expect({ point, injected: (faults.injected[point] ?? 0) > 0 }).toEqual({ point, injected: true });
    }
    expect(retries.length).toBeGreaterThanOrEqual(8);
    for (const line of retries) expect(line).toMatch(/^subscription failed \(attempt \d+\): .+; resubscribing from the checkpoints in \d+ ms$/);
    expect(projector.status()).toMatchObject({ state: 'live', failingSince: null, retry: null });

    // Nothing parked, nothing lost.
    expect(await inner.reads.listParked()).toEqual([]);
    const stored = await inner.reads.collection('notes').find({ _org: 'acme' }, { sort: { _id: 1 } });
    expect(stored).toHaveLength(N);
    for (const doc of stored) {
      const want = expected.get(String(doc.name));
      expect({ name: doc.name, displayName: doc.displayName, deleted: doc.deleteTime !== undefined }).toEqual({ name: doc.name, ...want });
    }
    // Each event applied exactly once: the tally of every stream equals the stream's length.
    for (const doc of await inner.reads.collection('tally').find({})) {
      const streamId = String(doc._id).slice('acme|'.length);
      expect({ streamId, events: doc.events }).toEqual({ streamId, events: (await inner.events.readStream(streamId)).length });
    }

    // A fresh fold of the same log gives exactly the documents the faulty run left behind.
    const dump = (collection: string): Promise<Doc[]> => inner.reads.collection(collection).find({}, { sort: { _id: 1 } });
    for (const name of ['notes', 'tally']) {
      const before = await dump(name);
      const rebuilt = await projector.rebuild(name);
      expect(rebuilt.position).toEqual(head);
      expect(await dump(name)).toEqual(before);
    }
  });
});
