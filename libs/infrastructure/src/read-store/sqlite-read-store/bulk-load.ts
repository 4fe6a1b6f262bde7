/**
 * Bulk loads (beginBulk .. endBulk) into the SQLite read store: a rebuild fills a fresh physical
 * collection that nothing serves yet. Its secondary indexes are built once at the end (one sort
 * instead of B-tree maintenance per row), and so are its planner statistics.
 */
import type Database from 'better-sqlite3';
import type { PlannerStatistics } from './planner-statistics';
import { quote, type SchemaCache } from './schema-cache';
import type { Transactions } from './transactions';

/**
 * When the collection started empty, `written` holds every `_id` this load wrote: an update of any
 * other `_id` needs no lookup, the document cannot exist. The set only ever grows (a delete keeps
 * the id), so a rolled-back transaction can leave extra ids behind, which merely costs a lookup,
 * never a wrong answer.
 */
export interface BulkLoad {
  written: Set<string> | null;
}

export class BulkLoads {
  private readonly loads = new Map<string, BulkLoad>();

  constructor(
    private readonly db: Database.Database,
    private readonly tx: Transactions,
    private readonly schema: SchemaCache,
    private readonly statistics: PlannerStatistics,
  ) {}

  /** The load filling this physical collection, if one is open. */
  get(physical: string): BulkLoad | undefined {
    return this.loads.get(physical);
  }

  has(physical: string): boolean {
    return this.loads.has(physical);
  }

  /** The load is over (finished by a swap, or its collection dropped). */
  forget(physical: string): void {
    this.loads.delete(physical);
  }

  begin(physical: string): void {
    if (this.loads.has(physical)) return;
    const load = this.tx.write((): BulkLoad => {
      if (this.schema.isAliased(physical)) {
        throw new Error(`collection '${physical}' is served under an alias; a bulk load needs a fresh physical collection`);
      }
      const coll = this.schema.ensureTable(physical);
      const empty = this.db.prepare(`SELECT 1 FROM ${coll.table} LIMIT 1`).get() === undefined;
      // Indexes declared before the load (ensureIndexes usually runs first) are rebuilt in end().
      const indexes = this.db
        .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`)
        .pluck()
        .all(`c_${physical}`) as string[];
      for (const index of indexes) this.db.exec(`DROP INDEX ${quote(index)}`);
      return { written: empty ? new Set() : null };
    });
    this.loads.set(physical, load);
  }

  async end(physical: string): Promise<void> {
    if (!this.loads.has(physical)) return;
    // One write transaction per index (the collection is invisible, so nothing needs them all at
    // once): another process's write waits for one index build at most (about 0.1 s per 100k
    // documents), and this process's timers run in between.
    const pending = this.tx.read(() => {
      const coll = this.schema.collection(physical);
      return coll ? this.schema.indexDefinitions(physical, coll).length : 0;
    });
    for (let i = 0; i < pending; i++) {
      this.tx.write(() => {
        const coll = this.schema.collection(physical);
        const sql = coll ? this.schema.indexDefinitions(physical, coll)[i] : undefined;
        if (sql) this.db.exec(sql);
      });
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Indexes declared meanwhile (by this instance during the awaits) and the statistics.
    const rows = this.tx.write(() => this.finish(physical));
    this.loads.delete(physical);
    if (rows !== null) this.statistics.record(physical, rows);
  }

  /** Builds a load's (remaining) indexes and its statistics, inside the caller's write transaction; returns the analyzed row count. */
  finish(physical: string): number | null {
    const coll = this.schema.collection(physical);
    if (!coll) return null; // dropped meanwhile: nothing to build
    this.schema.createIndexes(physical, coll);
    // Sampled: sqlite_stat1 keeps only average rows per index prefix, which a sample estimates well,
    // and a full scan per index is a tenth of a rebuild's time.
    return this.statistics.analyze(physical, true);
  }
}
