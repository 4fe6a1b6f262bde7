import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '../event-store';
import { SqliteReadStore } from '../read-store';
import { applyPage } from './apply-page';
import { docId, type Projection } from './projection';
import { rebuildProjection, type RebuildProgress } from './rebuild';
import { replayParked } from './replay-parked';

/** A projection with a bug in its handling of `Tricky` events until `fixed` (a deploy of the fix). */
let fixed = false;
const tallies: Projection = {
  name: 'tallies',
  version: 1,
  collections: ['tallies'],
  indexes: { tallies: ['key'] },
  handle({ event, org, pos }) {
    const key = String(event.data.key);
    if (event.type === 'Hopeless') throw new Error(`never applies: ${key}`);
    if (event.type === 'Tricky' && !fixed) throw new Error(`bug on ${key}`);
    return [{ op: 'update', collection: 'tallies', id: docId(org, key), pos, update: { $set: { key, kind: event.type, _org: org } }, upsert: true }];
  },
};

describe('replayParked and rebuild progress (SQLite stores)', () => {
  let dir: string;
  let events: SqliteEventStore;
  let reads: SqliteReadStore;

  beforeEach(() => {
    fixed = false;
    dir = mkdtempSync(join(tmpdir(), 'svc-replay-'));
    events = new SqliteEventStore({ file: join(dir, 'events.db') });
    reads = new SqliteReadStore({ file: join(dir, 'read.db') });
  });
  afterEach(async () => {
    await events.close();
    await reads.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function append(type: string, key: string): Promise<void> {
    const metadata = { org: 'acme', actor: 'users/alice', subject: 'users/alice', correlationId: randomUUID(), causationId: randomUUID(), occurredAt: new Date().toISOString(), schemaVersion: 1 };
    await events.append(`tally-acme:tallies/${key}`, [{ id: randomUUID(), type, data: { key }, metadata }], 'any');
  }
  const doc = (key: string) => reads.collection('tallies').findOne({ _id: docId('acme', key) });

  it('applies a parked event once its cause is fixed and unparks it; one that still fails stays parked with its error', async () => {
    await append('Plain', 'a');
    await append('Tricky', 'b');
    await append('Hopeless', 'c');
    await applyPage(reads, await events.readAll({}), [{ projection: tallies }]);
    expect((await reads.listParked('tallies')).map((p) => p.eventType).sort()).toEqual(['Hopeless', 'Tricky']);
    const checkpoint = await reads.getCheckpoint('tallies');

    // Before the fix a replay changes nothing.
    expect((await replayParked(events, reads, tallies)).map((o) => o.outcome)).toEqual(['failed', 'failed']);
    expect(await doc('b')).toBeNull();

    fixed = true;
    const outcomes = await replayParked(events, reads, tallies);
    expect(outcomes.map((o) => [o.eventType, o.outcome])).toEqual([
      ['Tricky', 'applied'],
      ['Hopeless', 'failed'],
    ]);
    expect(outcomes[1].error).toMatch(/never applies: c/);
    expect(await doc('b')).toMatchObject({ key: 'b', kind: 'Tricky' });
    expect((await reads.listParked('tallies')).map((p) => p.eventType)).toEqual(['Hopeless']);
    // The projection's own checkpoint did not move back, and no scratch checkpoint is left.
    expect(await reads.getCheckpoint('tallies')).toEqual(checkpoint);
    expect((await reads.listCheckpoints()).map((c) => c.name)).toEqual(['tallies']);
  });

  it('reports rebuild progress after every page and ends at the whole log', async () => {
    for (let i = 0; i < 1100; i++) await append('Plain', `k${i}`);
    const seen: RebuildProgress[] = [];
    const result = await rebuildProjection(events, reads, tallies, (p) => seen.push(p));
    expect(seen.length).toBe(3); // pages of 512
    expect(seen.map((p) => p.events)).toEqual([512, 1024, 1100]);
    expect(seen[0].fraction).toBeCloseTo(512 / 1100, 3);
    expect(seen[0].etaSeconds).not.toBeNull();
    expect(result.progress).toMatchObject({ projection: 'tallies', events: 1100, fraction: 1, etaSeconds: 0 });
  });
});
