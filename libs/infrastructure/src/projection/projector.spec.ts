import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { positionToString, SqliteEventStore } from '../event-store';
import { SqliteReadStore } from '../read-store';
import { docId, type Projection } from './projection';
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
