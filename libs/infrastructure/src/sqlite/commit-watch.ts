/**
 * Cross-process wake-ups for the embedded stores. After each write transaction commits, the writer
 * touches the database's marker file (`<file>-commit`, one byte rewritten in place); a watch on that
 * file (inotify on Linux) hears every commit of every process on the machine. Subscriptions and
 * read-your-writes waiters use it to wake when another process commits, instead of finding out at
 * their next poll.
 *
 * Why a marker rather than the `-wal` file itself: SQLite writes a commit's WAL as two writes per
 * page, so a watch of the WAL heard dozens of events per commit, each a wake-up and a read of an
 * unfinished commit, in every process; at 250 commits a second that cost more system calls per
 * request than the commit saved (docs/performance.md). The marker is written once, after the
 * commit is visible.
 *
 * A wake-up is a hint, never a guarantee: a writer that does not touch the marker (an older
 * version), a watch that is unavailable (some file systems, a watch limit) or fails later, a marker
 * removed by hand. Callers therefore keep a poll: a slow one while the watch is alive (a safety net
 * for a writer that does not signal), their fast one once it is not (CommitWatch.alive).
 */
import { closeSync, constants, type FSWatcher, openSync, watch, writeSync } from 'node:fs';
import { resolve } from 'node:path';

type Listener = () => void;

/** A listener's hold on a database's watch. */
export interface CommitWatch {
  stop(): void;
  /**
   * True while commits are heard. False once the watch failed or its marker was removed or replaced
   * (a watch follows the file it opened, so it would hear nothing more): the caller polls at its own
   * pace again. Listeners are called when that happens.
   */
  readonly alive: boolean;
}

interface MarkerWatch {
  watcher: FSWatcher;
  listeners: Set<Listener>;
  alive: boolean;
}

/** One watch per marker serves every listener of the process; it does not keep the process alive. */
const watches = new Map<string, MarkerWatch>();

const markerOf = (file: string): string => `${resolve(file)}-commit`;

/** Opens (creating) a database's marker for writing. */
const openMarker = (file: string): number => openSync(markerOf(file), constants.O_RDWR | constants.O_CREAT, 0o644);

/**
 * Calls `listener` whenever a process commits to the database `file`. Answers null when the marker
 * cannot be watched (callers then rely on polling).
 */
export function watchCommits(file: string, listener: Listener): CommitWatch | null {
  if (file === ':memory:') return null;
  const marker = markerOf(file);
  let entry = watches.get(marker);
  if (!entry) {
    try {
      closeSync(openMarker(file)); // a file must exist to be watched
      const listeners = new Set<Listener>();
      // A watch that fails, or whose marker is renamed or removed, goes quiet: it says so (alive
      // false, a last call of each listener) and every listener's poll carries on at its own pace.
      const lost = (): void => {
        if (!created.alive) return;
        created.alive = false;
        created.watcher.close();
        if (watches.get(marker) === created) watches.delete(marker);
        for (const l of [...listeners]) l();
      };
      const watcher = watch(marker, { persistent: false }, (event) => {
        if (event === 'rename') return lost();
        for (const l of [...listeners]) l();
      });
      // Before any event or error can arrive: both come in later turns of the event loop.
      const created: MarkerWatch = { watcher, listeners, alive: true };
      watcher.on('error', lost);
      watches.set(marker, created);
      entry = created;
    } catch {
      return null;
    }
  }
  const current = entry;
  current.listeners.add(listener);
  return {
    stop: () => {
      current.listeners.delete(listener);
      if (current.listeners.size === 0 && current.alive) {
        current.alive = false;
        current.watcher.close();
        if (watches.get(marker) === current) watches.delete(marker);
      }
    },
    get alive() {
      return current.alive;
    },
  };
}

const ONE_BYTE = Buffer.from([0]);

/**
 * A writer's side: `signal()` after each committed write transaction (one small write, in place).
 * Never throws: a marker that cannot be written costs the watchers their wake-up, not the writer its commit.
 */
export class CommitMarker {
  private fd: number | null = null;
  private failed = false;

  constructor(private readonly file: string) {}

  signal(): void {
    if (this.failed || this.file === ':memory:') return;
    try {
      this.fd ??= openMarker(this.file);
      writeSync(this.fd, ONE_BYTE, 0, 1, 0);
    } catch {
      this.failed = true;
    }
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
