/**
 * Planner statistics (ANALYZE) for the SQLite read store's collections. Plan choice between "filter
 * index then sort" and "walk the sort index" depends on how many rows match, which SQLite only
 * knows from ANALYZE (sqlite_stat1/stat4); without statistics a selective filter was seen to take
 * 20x longer.
 *
 * Statistics are never taken inside a live commit: a bulk load takes them before its collection
 * goes live, ensureIndexes takes them for a collection that has rows but none or stale ones, and an
 * idle-time timer refreshes collections that doubled since their last analysis.
 */
import type Database from 'better-sqlite3';
import { tableName, type CollectionState, type SchemaCache } from './schema-cache';
import type { StatementCache } from './statements';
import type { Transactions } from './transactions';

/** Below this many rows the planner's defaults do as well as statistics, so ANALYZE is not worth a write. */
const MIN_ANALYZE_ROWS = 200;
/** The idle-time analysis waits for this long without a commit, so it does not delay the next batch. */
const IDLE_MS = 500;
/** ...but not longer than this: then it takes sampled statistics, whose cost is bounded. */
const MAX_IDLE_WAIT_MS = 5000;
/**
 * Rows per index a sampled ANALYZE examines: a full ANALYZE reads every index (about 150 ms at 100k
 * notes, growing with the table), a sampled one is bounded (about 15 ms) at the price of
 * sqlite_stat4's per-value samples.
 */
const SAMPLED_ANALYSIS_ROWS = 1000;

export class PlannerStatistics {
  /** Physical collection -> row count its planner statistics were taken at (see analyzeIfDue). */
  private readonly analyzedAt = new Map<string, number>();
  /** Physical collections that gained rows since the idle-time analysis last looked at them. */
  private readonly grown = new Set<string>();
  private analyzeTimer: NodeJS.Timeout | null = null;
  /** When the pending analysis timer fires. */
  private analyzeDueAt = 0;
  /** When the idle-time analysis last ran an ANALYZE. */
  private lastAnalysisAt = 0;
  private lastWriteAt = 0;

  constructor(
    private readonly db: Database.Database,
    private readonly statements: StatementCache,
    private readonly tx: Transactions,
    private readonly schema: SchemaCache,
    /** A bulk load takes its own statistics (endBulk). */
    private readonly loading: (physical: string) => boolean,
    /** How often (at most) the timer re-analyzes collections that doubled; 0 turns it off. */
    private readonly analyzeIntervalMs: number,
  ) {}

  /** After a commit that added rows to `grown`: arms the idle-time analysis. */
  committed(grown: Set<string>): void {
    this.lastWriteAt = Date.now();
    for (const physical of grown) this.grown.add(physical);
    if (grown.size > 0) this.scheduleAnalyze();
  }

  /** The row count of the collection's statistics, taken by a bulk load or a swap. */
  record(physical: string, rows: number): void {
    this.analyzedAt.set(physical, rows);
  }

  /** The collection was dropped. */
  forget(physical: string): void {
    this.analyzedAt.delete(physical);
    this.grown.delete(physical);
  }

  /**
   * Full statistics for a collection about to go live that outgrew its last ones, inside the
   * caller's write transaction; returns the analyzed row count, or null when none were due.
   */
  analyzeIfOutgrown(physical: string, coll: CollectionState): number | null {
    const rows = this.rowEstimate(coll);
    return rows >= MIN_ANALYZE_ROWS && rows >= 2 * this.lastAnalyzed(physical) ? this.analyze(physical, false) : null;
  }

  stop(): void {
    if (this.analyzeTimer !== null) clearTimeout(this.analyzeTimer);
    this.analyzeTimer = null;
  }

  /**
   * A collection is due once it holds MIN_ANALYZE_ROWS and twice the rows of its last analysis (or
   * `force`), so the cost stays proportional to the writes; other connections pick the statistics
   * up on their own.
   */
  analyzeIfDue(physical: string, force: boolean, sampled: boolean): boolean {
    try {
      const coll = this.tx.read(() => this.schema.collection(physical));
      if (!coll || this.loading(physical)) return false;
      const rows = this.rowEstimate(coll);
      if (rows < MIN_ANALYZE_ROWS || (!force && rows < 2 * this.lastAnalyzed(physical))) return false;
      this.analyzedAt.set(physical, this.analyze(physical, sampled));
      return true;
    } catch {
      // Statistics are an optimization: never fail the caller (e.g. a table another process just
      // dropped, or its lock held past busy_timeout).
      return false;
    }
  }

  /** max(rowid) is O(log n); it overestimates after deletes, which only delays the next analysis. */
  private rowEstimate(coll: CollectionState): number {
    return (this.statements.get(`SELECT max(rowid) FROM ${coll.table}`, true).get() as number | null) ?? 0;
  }

  private lastAnalyzed(physical: string): number {
    let last = this.analyzedAt.get(physical);
    if (last === undefined) {
      // The first number of a stat1 row is the table's row count when it was analyzed.
      const hasStat1 = this.statements.get("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'", true).get() !== undefined;
      const stat = hasStat1 ? this.statements.get('SELECT stat FROM sqlite_stat1 WHERE tbl = ? LIMIT 1', true).get(`c_${physical}`) : undefined;
      last = Number.parseInt(String(stat ?? '0'), 10) || 0;
      this.analyzedAt.set(physical, last);
    }
    return last;
  }

  /** ANALYZE one table (`sampled`: bounded work, see SAMPLED_ANALYSIS_ROWS); returns the row count it describes. */
  analyze(physical: string, sampled: boolean): number {
    const coll = this.schema.collection(physical);
    const rows = coll ? this.rowEstimate(coll) : 0;
    if (sampled) this.db.pragma(`analysis_limit = ${SAMPLED_ANALYSIS_ROWS}`);
    try {
      this.db.exec(`ANALYZE ${tableName(physical)}`);
    } finally {
      if (sampled) this.db.pragma('analysis_limit = 0');
    }
    return rows;
  }

  /**
   * Arms the idle-time analysis after a commit grew collections. A collection that never had
   * statistics is looked at as soon as the commits pause (its plans can be 20-100x off, and while
   * it is small its analysis is cheap); re-analysis of one that doubled waits for the interval.
   */
  private scheduleAnalyze(): void {
    if (this.analyzeIntervalMs <= 0 || !this.db.open) return;
    try {
      const now = Date.now();
      const idleMs = Math.min(IDLE_MS, this.analyzeIntervalMs);
      const first = [...this.grown].some((physical) => this.lastAnalyzed(physical) === 0);
      const dueAt = first ? now + idleMs : Math.max(now + idleMs, this.lastAnalysisAt + this.analyzeIntervalMs);
      if (this.analyzeTimer !== null) {
        if (this.analyzeDueAt <= dueAt) return;
        clearTimeout(this.analyzeTimer);
      }
      this.armAnalyze(dueAt, dueAt - now);
    } catch {
      // Never fail the commit that already happened over statistics.
    }
  }

  private armAnalyze(dueAt: number, delayMs: number): void {
    this.analyzeDueAt = Date.now() + delayMs;
    this.analyzeTimer = setTimeout(() => this.analyzeWhenIdle(dueAt), delayMs);
    this.analyzeTimer.unref(); // statistics never keep a process alive
  }

  /**
   * Waits for a pause in the commits (ANALYZE blocks this process's event loop for as long as it
   * reads), but not for ever: past MAX_IDLE_WAIT_MS it takes sampled statistics, whose cost is bounded.
   */
  private analyzeWhenIdle(dueAt: number): void {
    this.analyzeTimer = null;
    if (!this.db.open) return;
    const now = Date.now();
    const idleMs = Math.min(IDLE_MS, this.analyzeIntervalMs);
    const busy = now - this.lastWriteAt < idleMs;
    if (busy && now - dueAt < Math.min(MAX_IDLE_WAIT_MS, this.analyzeIntervalMs)) {
      this.armAnalyze(dueAt, idleMs);
      return;
    }
    const names = [...this.grown];
    this.grown.clear();
    const mayReanalyze = now - this.lastAnalysisAt >= this.analyzeIntervalMs;
    let ran = false;
    for (const physical of names) {
      if (!mayReanalyze && this.lastAnalyzed(physical) > 0) {
        this.grown.add(physical); // at most one re-analysis pass per interval
        continue;
      }
      ran = this.analyzeIfDue(physical, false, busy) || ran;
    }
    if (ran) this.lastAnalysisAt = Date.now();
    if (this.grown.size > 0) this.scheduleAnalyze();
  }
}
