/**
 * Cross-process wake-ups for the embedded stores: a commit to a SQLite database in WAL mode writes
 * its `-wal` file, so a watch on the database's directory (inotify on Linux) hears every commit of
 * every process on the machine. Subscriptions and read-your-writes waiters use it to wake when
 * another process commits, instead of finding out at their next poll.
 *
 * A wake-up is a hint, never a guarantee: the event may arrive a moment before the commit is
 * visible (SQLite writes the WAL frames, then publishes them in the shared index), a watch may be
 * unavailable (some file systems, a watch limit) or fail later. Callers therefore keep a poll, and
 * look once more shortly after a wake-up that found nothing.
 */
import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';

type Listener = () => void;

interface DirectoryWatch {
  watcher: FSWatcher | null;
  /** Listeners by WAL file name (`events.db-wal`). */
  listeners: Map<string, Set<Listener>>;
}

const directories = new Map<string, DirectoryWatch>();

/**
 * Calls `listener` whenever a process writes the WAL of the database `file`; answers the function
 * that stops it. Returns null when the directory cannot be watched (callers then rely on polling).
 * One watch per directory serves every database and listener in it; it does not keep the process alive.
 */
export function watchCommits(file: string, listener: Listener): (() => void) | null {
  if (file === ':memory:') return null;
  const path = resolve(file);
  const dir = dirname(path);
  let entry = directories.get(dir);
  if (!entry) {
    entry = { watcher: null, listeners: new Map() };
    const created = entry;
    try {
      created.watcher = watch(dir, { persistent: false }, (_event, name) => {
        if (name === null) return;
        const listeners = created.listeners.get(name.toString());
        if (listeners) for (const l of [...listeners]) l();
      });
    } catch {
      return null;
    }
    // A watch that fails later (the directory removed, say) goes quiet: every listener's poll carries on.
    created.watcher.on('error', () => {
      created.watcher?.close();
      created.watcher = null;
      if (directories.get(dir) === created) directories.delete(dir);
    });
    directories.set(dir, created);
  }
  const current = entry;
  const name = `${basename(path)}-wal`;
  let set = current.listeners.get(name);
  if (!set) current.listeners.set(name, (set = new Set()));
  set.add(listener);
  return () => {
    set.delete(listener);
    if (set.size === 0) current.listeners.delete(name);
    if (current.listeners.size === 0) {
      current.watcher?.close();
      if (directories.get(dir) === current) directories.delete(dir);
    }
  };
}
