import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Position } from '../event-store/event-store.port';
import { SqliteReadStore } from '../read-store/sqlite-read-store/sqlite-read-store';
import { watchCommits } from '../sqlite/commit-watch';
import { projectionProgress } from './apply-page';
import { type CheckpointSource, ProjectionWaiter } from './waiter';

const at = (commit: number): Position => ({ commit: BigInt(commit), prepare: BigInt(commit) });

/** A checkpoint source whose positions the test sets, counting the reads. */
class FakeCheckpoints implements CheckpointSource {
  readonly positions = new Map<string, Position>();
  reads = 0;
  failing = false;
  async getCheckpoint(name: string): Promise<Position | null> {
    this.reads += 1;
    if (this.failing) throw new Error('store unavailable');
    return this.positions.get(name) ?? null;
  }
}

describe('ProjectionWaiter', () => {
  let source: FakeCheckpoints;
  let waiter: ProjectionWaiter;
  beforeEach(() => {
    jest.useFakeTimers();
    source = new FakeCheckpoints();
    waiter = new ProjectionWaiter(source, 1);
  });
  afterEach(() => {
    waiter.close();
    jest.useRealTimers();
  });

  /** Settles each promise's outcome into `results` as it resolves. */
  const track = (promises: Array<Promise<boolean>>): Array<boolean | undefined> => {
    const results: Array<boolean | undefined> = promises.map(() => undefined);
    promises.forEach((p, i) => void p.then((r) => (results[i] = r)));
    return results;
  };

  it('reads nothing while no command waits, and stops reading once the last wait is over', async () => {
    await jest.advanceTimersByTimeAsync(10_000);
    expect(source.reads).toBe(0);

    source.positions.set('notes', at(5));
    await expect(waiter.waitFor('notes', at(5), 5000)).resolves.toBe(true);
    const afterWait = source.reads;
    await jest.advanceTimersByTimeAsync(10_000);
    expect(source.reads).toBe(afterWait);
    expect(waiter.pending).toBe(0);
  });

  it('resolves every waiter the checkpoint has passed with one read, and keeps those it has not', async () => {
    source.positions.set('notes', at(0));
    const results = track(Array.from({ length: 50 }, (_, i) => waiter.waitFor('notes', at(i + 1), 5000)));
    await jest.advanceTimersByTimeAsync(0);
    expect(source.reads).toBe(1);
    expect(results.every((r) => r === undefined)).toBe(true);

    source.positions.set('notes', at(40));
    await jest.advanceTimersByTimeAsync(1);
    expect(source.reads).toBe(2);
    expect(results.slice(0, 40).every((r) => r === true)).toBe(true);
    expect(results.slice(40).every((r) => r === undefined)).toBe(true);
    expect(waiter.pending).toBe(10);
  });

  it('reads each awaited projection once per round, however many commands wait for it', async () => {
    for (let i = 0; i < 20; i++) void waiter.waitFor(i % 2 ? 'notes' : 'access', at(1), 5000);
    await jest.advanceTimersByTimeAsync(0);
    const firstRound = source.reads;
    await jest.advanceTimersByTimeAsync(1);
    expect(source.reads - firstRound).toBe(2);
  });

  it('answers false after the timeout when the projection never gets there, then stops reading', async () => {
    const results = track([waiter.waitFor('notes', at(7), 5000)]);
    await jest.advanceTimersByTimeAsync(4999);
    expect(results).toEqual([undefined]);
    await jest.advanceTimersByTimeAsync(1);
    expect(results).toEqual([false]);
    const reads = source.reads;
    await jest.advanceTimersByTimeAsync(1000);
    expect(source.reads).toBe(reads);
    expect(waiter.pending).toBe(0);
  });

  it('honours the timeout while the store fails, and resolves once it answers again', async () => {
    source.failing = true;
    const results = track([waiter.waitFor('notes', at(3), 200), waiter.waitFor('notes', at(3), 5000)]);
    await jest.advanceTimersByTimeAsync(200);
    expect(results).toEqual([false, undefined]);
    source.failing = false;
    source.positions.set('notes', at(3));
    await jest.advanceTimersByTimeAsync(100);
    expect(results).toEqual([false, true]);
  });

  it('is woken by an in-process projector without waiting for a read, and remembers how far it got', async () => {
    const results = track([waiter.waitFor('notes', at(9), 5000)]);
    projectionProgress.emit('progress', 'notes', at(9));
    await Promise.resolve();
    expect(results).toEqual([true]);
    const reads = source.reads;
    await expect(waiter.waitFor('notes', at(8), 5000)).resolves.toBe(true);
    expect(source.reads).toBe(reads);
  });

  it('ends every wait within the hurry bound when the api stops', async () => {
    const results = track([waiter.waitFor('notes', at(1), 5000)]);
    waiter.hurry(100);
    const later = track([waiter.waitFor('notes', at(2), 5000)]);
    await jest.advanceTimersByTimeAsync(100);
    expect([...results, ...later]).toEqual([false, false]);
  });
});

describe('ProjectionWaiter with commit signals', () => {
  let source: FakeCheckpoints;
  let signal: (() => void) | null;
  let alive: boolean;
  let waiter: ProjectionWaiter;
  beforeEach(() => {
    jest.useFakeTimers();
    source = new FakeCheckpoints();
    alive = true;
    waiter = new ProjectionWaiter(source, 1, (listener) => {
      signal = listener;
      return { stop: () => (signal = null), get alive() { return alive; } };
    });
  });
  afterEach(() => {
    waiter.close();
    jest.useRealTimers();
  });

  it('reads the checkpoints at each signalled commit and otherwise only at the slow safety interval', async () => {
    source.positions.set('notes', at(0));
    const result = waiter.waitFor('notes', at(5), 30_000);
    await jest.advanceTimersByTimeAsync(1000);
    // The first read, then the 50 ms safety net: not one read a millisecond.
    expect(source.reads).toBeLessThanOrEqual(1 + 1000 / 50);
    const before = source.reads;
    source.positions.set('notes', at(5));
    signal?.();
    await jest.advanceTimersByTimeAsync(0);
    await expect(result).resolves.toBe(true);
    expect(source.reads).toBe(before + 1);
  });

  it('reads a projection nobody waited for at once when a command starts waiting for it', async () => {
    const notes = waiter.waitFor('notes', at(5), 30_000);
    await jest.advanceTimersByTimeAsync(0);
    source.positions.set('tags', at(3));
    const tags = waiter.waitFor('tags', at(3), 30_000);
    await jest.advanceTimersByTimeAsync(0);
    await expect(tags).resolves.toBe(true);
    waiter.hurry(0);
    await jest.advanceTimersByTimeAsync(0);
    await expect(notes).resolves.toBe(false);
  });

  it('polls at its fast interval again once the watch is lost', async () => {
    const result = waiter.waitFor('notes', at(5), 30_000);
    await jest.advanceTimersByTimeAsync(0);
    alive = false;
    signal?.(); // a lost watch calls its listeners
    const before = source.reads;
    await jest.advanceTimersByTimeAsync(100);
    expect(source.reads - before).toBeGreaterThan(40);
    source.positions.set('notes', at(5));
    await jest.advanceTimersByTimeAsync(2);
    await expect(result).resolves.toBe(true);
  });
});

describe('ProjectionWaiter across processes (the embedded read store)', () => {
  it("answers when another process's projector commits, long before its poll", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-waiter-'));
    const file = join(dir, 'read.db');
    const mine = new SqliteReadStore({ file });
    const theirs = new SqliteReadStore({ file }); // the projector's connection (a commit is a commit, whatever the process)
    const waiter = new ProjectionWaiter(mine, 60_000, (listener) => watchCommits(file, listener), 60_000);
    try {
      const started = Date.now();
      const waiting = waiter.waitFor('notes', at(5), 30_000);
      await new Promise((r) => setTimeout(r, 20)); // the first read found nothing; the next poll is a minute away
      await theirs.commitMany([{ checkpoint: 'notes', position: at(5), ops: [] }]);
      expect(await waiting).toBe(true);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      waiter.close();
      await mine.close();
      await theirs.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is told nothing for an in-memory store (it polls)', () => {
    expect(watchCommits(':memory:', () => undefined)).toBeNull();
  });
});
