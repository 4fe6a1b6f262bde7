import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Position, positionToString, type RecordedEvent, SqliteEventStore } from '../event-store';
import { SqliteReadStore } from '../read-store';
import type { Projection } from './projection';
import { docId } from './projection';
import { Projector } from './projector';
import { applyPage, type Target } from './apply-page';

/**
 * Applying pages against the real SQLite stores. The test projection counts events with `$inc`, which
 * is not idempotent by itself: only the position guard keeps a re-delivery from counting twice.
 */
const counters: Projection = {
  name: 'counters',
  version: 1,
  collections: ['counters'],
  indexes: { counters: ['key'] },
  handle({ event, org, pos }) {
    const key = String(event.data.key);
    switch (event.type) {
      case 'Counted':
        return [{ op: 'update', collection: 'counters', id: docId(org, key), pos, update: { $inc: { count: 1 }, $set: { key, _org: org } }, upsert: true }];
      case 'Broken':
        throw new Error(`cannot count ${key}`);
      case 'Rejected':
        // An operator the read-store port does not have: refused by the pure check, before any write.
        return [{ op: 'update', collection: 'counters', id: docId(org, key), pos, update: { $bogus: { count: 1 } }, upsert: true }];
      default:
        return [];
    }
  },
};

const LIVE = { checkpoint: 'counters', collections: { counters: 'counters' } };

describe('applyPage (SQLite stores)', () => {
  let dir: string;
  let events: SqliteEventStore;
  let reads: SqliteReadStore;
  /** One page for the counters alone, into `target` (as a rebuild applies its pages). */
  const runner = { apply: (page: RecordedEvent[], target: Target) => applyPage(reads, page, [{ projection: counters, target }]) };
  /** Live processing of the same projection (the projector's subscription, as in production). */
  let live: Projector;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-runner-'));
    events = new SqliteEventStore({ file: join(dir, 'events.db') });
    reads = new SqliteReadStore({ file: join(dir, 'read.db') });
    live = new Projector(events, reads, [counters]);
  });

  afterEach(async () => {
    await live.stop();
    await events.close();
    await reads.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Appends one event per entry, each to its key's stream, and returns them as recorded. */
  async function append(...entries: Array<[type: string, key: string]>): Promise<RecordedEvent[]> {
    const after = await events.headPosition();
    for (const [type, key] of entries) {
      await events.append(
        `counter-acme:counters/${key}`,
        [
          {
            id: randomUUID(),
            type,
            data: { key },
            metadata: {
              org: 'acme',
              actor: 'users/alice',
              subject: 'users/alice',
              correlationId: randomUUID(),
              causationId: randomUUID(),
              occurredAt: new Date().toISOString(),
              schemaVersion: 1,
            },
          },
        ],
        'any',
      );
    }
    return events.readAll({ after });
  }

  const dump = () => reads.collection('counters').find({}, { sort: { _id: 1 } });
  const count = async (key: string) => (await reads.collection('counters').findOne({ _id: docId('acme', key) }))?.count;
  const checkpoint = async () => {
    const position = await reads.getCheckpoint('counters');
    return position && positionToString(position);
  };
  const last = (batch: RecordedEvent[]): string => positionToString(batch[batch.length - 1].position);

  it('re-delivering a batch changes nothing', async () => {
    const batch = await append(['Counted', 'a'], ['Counted', 'b'], ['Counted', 'a']);
    await runner.apply(batch, LIVE);
    const first = await dump();
    expect(first.map((d) => [d.key, d.count])).toEqual([
      ['a', 2],
      ['b', 1],
    ]);

    await runner.apply(batch, LIVE);
    // A redelivery that overlaps new events applies only the new ones.
    const more = await append(['Counted', 'b']);
    await runner.apply([...batch.slice(1), ...more], LIVE);
    await runner.apply(batch, LIVE);

    expect(await count('a')).toBe(2);
    expect(await count('b')).toBe(2);
    expect((await dump()).find((d) => d.key === 'a')).toEqual(first.find((d) => d.key === 'a'));
    expect(await reads.listParked()).toEqual([]);
  });

  it('a handler that throws parks exactly that event; the rest of the batch is applied and the checkpoint advances', async () => {
    const batch = await append(['Counted', 'a'], ['Broken', 'x'], ['Counted', 'b']);
    await runner.apply(batch, LIVE);

    expect(await count('a')).toBe(1);
    expect(await count('b')).toBe(1);
    expect(await checkpoint()).toBe(last(batch));
    const parked = await reads.listParked('counters');
    expect(parked).toEqual([
      {
        projection: 'counters',
        eventId: batch[1].id,
        eventType: 'Broken',
        streamId: 'counter-acme:counters/x',
        position: batch[1].position,
        error: 'cannot count x',
        parkedAt: expect.any(String),
      },
    ]);
    // Redelivery refreshes the parked record rather than adding another.
    await runner.apply(batch, LIVE);
    expect(await reads.listParked('counters')).toHaveLength(1);
  });

  it('an op the read store does not support parks its event (checked before any write) and does not stall the projection', async () => {
    const batch = await append(['Counted', 'a'], ['Rejected', 'r'], ['Counted', 'b']);
    await runner.apply(batch, LIVE);

    expect(await count('a')).toBe(1);
    expect(await count('b')).toBe(1);
    expect(await checkpoint()).toBe(last(batch));
    const parked = await reads.listParked('counters');
    expect(parked.map((p) => [p.eventId, p.eventType])).toEqual([[batch[1].id, 'Rejected']]);
    expect(parked[0].error).toMatch(/\$bogus/);

    // Live from the checkpoint: later events, another rejected one among them, still get through.
    await live.start();
    const later = await append(['Counted', 'a'], ['Rejected', 's'], ['Counted', 'c']);
    await waitUntil(async () => (await checkpoint()) === last(later));
    expect(await count('a')).toBe(2);
    expect(await count('c')).toBe(1);
    expect((await reads.listParked('counters')).map((p) => p.eventId)).toEqual([batch[1].id, later[1].id]);
  });

  it('the checkpoint advances for a batch that produces no ops', async () => {
    const batch = await append(['Ignored', 'a'], ['Ignored', 'b']);
    await runner.apply(batch, LIVE);
    expect(await checkpoint()).toBe(last(batch));
    expect(await dump()).toEqual([]);

    // And a live runner moves a quiet projection to the head too.
    await live.start();
    const later = await append(['Ignored', 'c']);
    await waitUntil(async () => (await checkpoint()) === last(later));
    const head: Position = await events.headPosition();
    expect(await checkpoint()).toBe(positionToString(head));
  });
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
