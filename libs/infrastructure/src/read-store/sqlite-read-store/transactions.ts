/**
 * The SQLite read store's transactions, each run on the current schema state, and the reads that
 * need none: a query that runs while no other connection committed is a single statement outside
 * any explicit transaction, atomic on its own, and a second look at data_version afterwards proves
 * the cached schema described the snapshot it ran on. Otherwise the query runs in a read
 * transaction, where the schema state and the query share one snapshot.
 */
import type Database from 'better-sqlite3';
import type { SchemaCache } from './schema-cache';

export class Transactions {
  /** Runs a callback in a transaction: `.deferred` for reads, `.immediate` for writes. */
  private readonly tx: Database.Transaction<(fn: () => unknown) => unknown>;
  /** Reads that ran as a single statement on the cached schema state. */
  direct = 0;
  /** Reads that ran in a read transaction (another connection committed since the last check). */
  transactional = 0;

  constructor(
    db: Database.Database,
    private readonly schema: SchemaCache,
  ) {
    this.tx = db.transaction((fn: () => unknown) => fn());
  }

  /**
   * A read that is one primary-key lookup. It only needs the cached alias to name the right table:
   * if another connection committed a swap between the data_version check and the lookup, the old
   * table is gone with it and the lookup fails, so it is retried in a read transaction.
   */
  readPoint<T>(fn: () => T): T {
    return this.readOnCache(fn, false);
  }

  /**
   * A read that is one statement (plus JavaScript). Its SQL depends on the cached path flags, so a
   * commit by another connection between the check and the statement (data_version moved) sends it
   * to a read transaction, where state and query share one snapshot.
   */
  readSingle<T>(fn: () => T): T {
    return this.readOnCache(fn, true);
  }

  /** Runs `fn` outside a transaction while the cache is current (`recheck`: and stayed so), else in a read transaction. */
  private readOnCache<T>(fn: () => T, recheck: boolean): T {
    if (this.schema.isCurrent()) {
      const seen = this.schema.checkedAt;
      try {
        const result = fn();
        if (!recheck || this.schema.dataVersionNow() === seen) {
          this.direct++;
          return result;
        }
      } catch {
        // fall through: e.g. a table dropped by a swap committed meanwhile
      }
    }
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
      return this.tx.immediate(() => {
        this.schema.refresh();
        return fn();
      }) as T;
    } catch (err) {
      this.schema.invalidate(); // the rollback may have undone schema changes already applied to the cache
      throw err;
    }
  }
}
