import type Database from 'better-sqlite3';

const RETRY_PAUSE_MS = 20;

/**
 * Puts a database in WAL mode. Switching a new file to WAL needs an exclusive lock, and SQLite answers
 * SQLITE_BUSY at once, without calling the busy handler, when another process is opening the same
 * new file at that moment (the api and the projector starting together). Retried for up to
 * `timeoutMs`; WAL is persistent, so once any process has set it the pragma is a read.
 */
export function enableWal(db: Database.Database, timeoutMs: number): void {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw error;
      // Synchronous on purpose: stores open in constructors, before the process serves anything.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RETRY_PAUSE_MS);
    }
  }
}
