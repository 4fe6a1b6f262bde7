/**
 * The SQLite read store's transactions, each run on the current schema state. A point read needs
 * none: it is one statement that also reads the schema version of its own snapshot, so it is atomic
 * and knows whether the cached state described that snapshot (every statement outside a transaction
 * takes and releases the database's read locks, a handful of system calls: one per read, not two).
 * Other reads run in a read transaction, where the version check and the query share one snapshot.
 */
import type Database from 'better-sqlite3';
import type { SchemaCache } from './schema-cache';

/** A point read ran on a schema state other than the cached one: it must run again after a reload. */
export const STALE: unique symbol = Symbol('stale schema state');
export type Stale = typeof STALE;

export class Transactions {
  /** Runs a callback in a transaction: `.deferred` for reads, `.immediate` for writes. */
  private readonly tx: Database.Transaction<(fn: () => unknown) => unknown>;
  /** Point reads that ran as a single statement on the cached schema state. */
  direct = 0;
  /** Reads that ran in a read transaction: queries, and point reads that found the cached state stale. */
  transactional = 0;

  constructor(
    db: Database.Database,
    private readonly schema: SchemaCache,
    /** After each committed write transaction (the commit marker other processes watch). */
    private readonly committed: () => void = () => undefined,
  ) {
    this.tx = db.transaction((fn: () => unknown) => fn());
  }

  /**
   * A primary-key lookup that answers STALE when its snapshot's schema version is not the cached one
   * (CollectionReads.point). Outside a transaction while the cache is current; otherwise, or when the
   * table went away meanwhile (a swap committed elsewhere dropped it), in a read transaction.
   */
  readPoint<T>(fn: () => T | Stale): T {
    if (this.schema.version !== -1) {
      try {
        const result = fn();
        if (result !== STALE) {
          this.direct++;
          return result;
        }
      } catch {
        // fall through: e.g. a table dropped by a swap committed meanwhile
      }
    }
    this.transactional++;
    return this.read(() => {
      const result = fn();
      // The cache was refreshed in this very snapshot.
      if (result === STALE) throw new Error('schema state changed inside a read transaction');
      return result;
    });
  }

  /** A query (SQL built from the cached path flags) in a read transaction, with the version check in its snapshot. */
  readQuery<T>(fn: () => T): T {
    this.transactional++;
    return this.read(fn);
  }

  read<T>(fn: () => T): T {
    return this.tx.deferred(() => {
      this.schema.refresh();
      return fn();
    }) as T;
  }

  write<T>(fn: () => T): T {
    try {
      const result = this.tx.immediate(() => {
        this.schema.refresh();
        return fn();
      }) as T;
      this.committed();
      return result;
    } catch (err) {
      this.schema.invalidate(); // the rollback may have undone schema changes already applied to the cache
      throw err;
    }
  }
}
