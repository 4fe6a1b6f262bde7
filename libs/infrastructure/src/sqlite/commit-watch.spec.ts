import { mkdtempSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommitMarker, watchCommits } from './commit-watch';

describe('commit marker', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'svc-commit-watch-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const woken = (count: () => number, atLeast: number) =>
    new Promise<void>((resolve, reject) => {
      const deadline = Date.now() + 5000;
      const check = () => (count() >= atLeast ? resolve() : Date.now() > deadline ? reject(new Error('no wake-up')) : setTimeout(check, 5));
      check();
    });

  it("wakes every watcher of the database when any writer signals a commit, and one byte is all it keeps", async () => {
    const file = join(dir, 'read.db');
    let first = 0;
    let second = 0;
    const stopFirst = watchCommits(file, () => first++)!;
    const stopSecond = watchCommits(file, () => second++)!;
    const writer = new CommitMarker(file);
    try {
      writer.signal();
      await woken(() => Math.min(first, second), 1);
      stopFirst.stop();
      const before = second;
      writer.signal();
      writer.signal();
      await woken(() => second, before + 1);
      expect(statSync(`${file}-commit`).size).toBe(1);
    } finally {
      stopSecond.stop();
      writer.close();
    }
  });

  it('does not hear other databases of the directory', async () => {
    let heard = 0;
    const stop = watchCommits(join(dir, 'events.db'), () => heard++)!;
    const other = new CommitMarker(join(dir, 'read.db'));
    try {
      other.signal();
      await new Promise((r) => setTimeout(r, 50));
      expect(heard).toBe(0);
    } finally {
      stop.stop();
      other.close();
    }
  });

  it('says the watch is lost when its marker is removed (its listeners woken), and a new watch hears the new marker', async () => {
    const file = join(dir, 'events.db');
    let heard = 0;
    const watch = watchCommits(file, () => heard++)!;
    expect(watch.alive).toBe(true);
    unlinkSync(`${file}-commit`);
    await woken(() => (watch.alive ? 0 : 1), 1);
    const heardWhenLost = heard;
    expect(heardWhenLost).toBeGreaterThanOrEqual(1);
    const writer = new CommitMarker(file); // recreates the marker
    let again = 0;
    const next = watchCommits(file, () => again++)!;
    try {
      writer.signal();
      await woken(() => again, 1);
      expect(next.alive).toBe(true);
      expect(heard).toBe(heardWhenLost);
    } finally {
      watch.stop();
      next.stop();
      writer.close();
    }
  });

  it('never fails a commit: a marker that cannot be written is skipped; an in-memory database has none', () => {
    const gone = new CommitMarker(join(dir, 'no-such-dir', 'events.db'));
    expect(() => gone.signal()).not.toThrow();
    expect(() => gone.signal()).not.toThrow();
    gone.close();
    expect(watchCommits(':memory:', () => undefined)).toBeNull();
    expect(watchCommits(join(dir, 'no-such-dir', 'events.db'), () => undefined)).toBeNull();
  });
});
