/**
 * SQLite read store: one table per physical collection holding documents as JSON, with MongoDB
 * semantics from mingo, and SQL pushdown for the fields a projection declares (ensureIndexes).
 *
 * Each declared path is materialized into a column of its own (written with the document, indexed
 * on `(_org, column)`): json_extract at query time costs a JSON parse per candidate row, which
 * dominated query time. The column holds what json_extract would return for scalars.
 *
 * Pushdown rule: the SQL WHERE is either exact (same answer as MongoDB) or a superset of the answer,
 * in which case mingo re-checks every candidate against the whole filter. A column mirrors MongoDB
 * only for scalar values, so every declared path carries flags, maintained on every write and read
 * in the same snapshot as the query: a path that ever held an array (anywhere along it) or an object
 * is never pushed down; a path that held a boolean gets type guards and no SQL ordering.
 *
 * Schema state (aliases, collections, declared paths and their flags) is cached per connection.
 * `PRAGMA data_version` (about 1 µs) tells whether another connection committed anything since the
 * cache was last checked; only then is the `_rs_state` version read (in one read transaction with
 * the query), and the cache reloaded when that version moved. A query that runs while nothing else
 * committed is a single statement outside any explicit transaction: it is atomic on its own, and a
 * second look at data_version afterwards proves the cache described the snapshot it ran on.
 *
 * Planner statistics (ANALYZE) are never taken inside a live commit: a bulk load takes them before
 * its collection goes live, ensureIndexes takes them for a collection that has rows but none or
 * stale ones, and an idle-time timer refreshes collections that doubled since their last analysis.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { Query, update as mingoUpdate } from 'mingo';
import { positionFromString, positionToString, type Position } from '../../event-store/event-store.port';
import { parseLiteralPattern, type LiteralPattern } from '../../query/literal-pattern';
import { filterQuery } from '../filter-query';
import type {
  CheckpointRecord,
  Doc,
  Filter,
  FindOptions,
  ParkedEvent,
  ProjectionBatch,
  ReadCollection,
  ReadStore,
  Sort,
  Update,
  WriteOp,
} from '../read-store.port';
import { CONTAINS_FN, MATCH_CI_FN, registerFilterFunctions } from './filter-functions';

type Criteria = ConstructorParameters<typeof Query>[0];
type Modifier = Parameters<typeof mingoUpdate>[1];
type Statement = Database.Statement<unknown[], unknown>;

/** An array somewhere on the path, or an object/array value: json_extract cannot mirror MongoDB there. */
const UNSAFE = 1;
/** A boolean value: json_extract yields 1/0, which compares and sorts as a number. */
const BOOL = 2;
/** An explicit null: the column holds NULL for null and missing alike, so `$exists` must look at the JSON. */
const NULLV = 4;

/** Paths we can inline into a JSON path literal (and an index expression) without quoting. */
const PATH_RE = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

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

interface PathState {
  flags: number;
  segs: string[];
  /** Quoted name of the materialized column. */
  column: string;
}

interface CollectionState {
  table: string;
  /** Flags of `_org`: UNSAFE once a document held a non-string `_org` (the column then is not the field). */
  orgFlags: number;
  paths: Map<string, PathState>;
  /** Statements over this table for its current columns, prepared once (SQL built per row cost as much as the write). */
  stmts: CollectionStatements;
}

interface CollectionStatements {
  /** The declared paths in the order the write statements list their columns. */
  columns?: [string, PathState][];
  byId?: Statement;
  current?: Statement;
  insert?: Statement;
  insertIfAbsent?: Statement;
  /** UPDATE statements keyed by the set of columns they change (bit 0 `_org`, bit i the i-th column). */
  replace?: Map<number, Statement>;
  remove?: Statement;
}

interface State {
  version: number;
  aliases: Map<string, string>;
  collections: Map<string, CollectionState>;
}

/**
 * A collection being filled by a rebuild (beginBulk .. endBulk). Its secondary indexes are built
 * once at the end (one sort instead of B-tree maintenance per row), and when it started empty
 * `written` holds every `_id` this load wrote: an update of any other `_id` needs no lookup, the
 * document cannot exist. The set only ever grows (a delete keeps the id), so a rolled-back
 * transaction can leave extra ids behind, which merely costs a lookup, never a wrong answer.
 */
interface BulkLoad {
  written: Set<string> | null;
}

/** A WHERE fragment; `sql: null` means no constraint. `exact: false` means a superset of the answer. */
interface Sql {
  sql: string | null;
  params: unknown[];
  exact: boolean;
}

/** What `explain` reports: how much of a query runs in SQL. */
export interface QueryPlan {
  table: string | null;
  where: string | null;
  params: unknown[];
  /** The WHERE clause is the whole filter (no mingo re-check). */
  exactFilter: boolean;
  /** The ORDER BY runs in SQL (including the `_id` tie-breaker). */
  sortPushedDown: boolean;
  /** The filter is `_id` equality (optionally with `_org`): one primary-key lookup, `_org` checked on the document. */
  pointRead: boolean;
}

/** Diagnostics: how collection reads (find, findOne, countDocuments) ran since the store was opened. */
export interface ReadStats {
  /** Reads that ran as a single statement on the cached schema state. */
  direct: number;
  /** Reads that ran in a read transaction (another connection committed since the last check). */
  transactional: number;
  /** Reloads of the cached schema state. */
  stateLoads: number;
}

export interface SqliteReadStoreOptions {
  file: string;
  /** Milliseconds a writer waits for another process's write lock. */
  busyTimeoutMs?: number;
  /**
   * Planner statistics of collections that doubled since their last ANALYZE are refreshed by a
   * timer at most this often (milliseconds), in a pause between commits; 0 turns the timer off.
   * Default one minute.
   */
  analyzeIntervalMs?: number;
}

const TRUE_INEXACT: Sql = { sql: null, params: [], exact: false };
const FALSE_EXACT: Sql = { sql: '0', params: [], exact: true };

const quote = (ident: string): string => `"${ident.replace(/"/g, '""')}"`;

export class SqliteReadStore implements ReadStore {
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Statement>();
  private state: State = { version: -1, aliases: new Map(), collections: new Map() };
  /** `PRAGMA data_version` when the cached state was last known to match the database. */
  private seenDataVersion = -1;
  private readonly dataVersion: Statement;
  private readonly stateVersion: Statement;
  private readonly upsertCheckpoint: Statement;
  private readonly readStats: ReadStats = { direct: 0, transactional: 0, stateLoads: 0 };
  /** Physical collection -> row count its planner statistics were taken at (see analyzeIfDue). */
  private readonly analyzedAt = new Map<string, number>();
  /** Physical collections that gained rows since the idle-time analysis last looked at them. */
  private readonly grown = new Set<string>();
  private readonly analyzeIntervalMs: number;
  private analyzeTimer: NodeJS.Timeout | null = null;
  /** When the pending analysis timer fires. */
  private analyzeDueAt = 0;
  /** When the idle-time analysis last ran an ANALYZE. */
  private lastAnalysisAt = 0;
  private lastWriteAt = 0;
  private readonly bulk = new Map<string, BulkLoad>();
  /** Runs a callback in a transaction: `.deferred` for reads, `.immediate` for writes. */
  private readonly tx: Database.Transaction<(fn: () => unknown) => unknown>;

  constructor(options: SqliteReadStoreOptions) {
    if (options.file !== ':memory:') mkdirSync(dirname(options.file), { recursive: true });
    this.db = new Database(options.file);
    registerFilterFunctions(this.db);
    this.db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.analyzeIntervalMs = options.analyzeIntervalMs ?? 60_000;
    this.tx = this.db.transaction((fn: () => unknown) => fn());
    this.tx.immediate(() => {
      this.db.exec(`
        CREATE TABLE IF NOT EXISTS _rs_state (k INTEGER PRIMARY KEY, v INTEGER NOT NULL);
        INSERT OR IGNORE INTO _rs_state (k, v) VALUES (1, 0);
        CREATE TABLE IF NOT EXISTS _rs_aliases (logical TEXT PRIMARY KEY, physical TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS _rs_collections (name TEXT PRIMARY KEY, org_flags INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE IF NOT EXISTS _rs_paths (coll TEXT NOT NULL, path TEXT NOT NULL, flags INTEGER NOT NULL, PRIMARY KEY (coll, path));
        CREATE TABLE IF NOT EXISTS _rs_checkpoints (name TEXT PRIMARY KEY, position TEXT NOT NULL, updated_at TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS _rs_parked (
          id INTEGER PRIMARY KEY AUTOINCREMENT, projection TEXT NOT NULL, event_id TEXT NOT NULL, event_type TEXT NOT NULL,
          stream_id TEXT NOT NULL, position TEXT NOT NULL, error TEXT NOT NULL, parked_at TEXT NOT NULL,
          UNIQUE (projection, event_id));
        CREATE TABLE IF NOT EXISTS _rs_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      `);
    });
    // The internal tables are never dropped, so these statements live as long as the connection.
    this.dataVersion = this.db.prepare('PRAGMA data_version').pluck();
    this.stateVersion = this.db.prepare('SELECT v FROM _rs_state WHERE k = 1').pluck();
    this.upsertCheckpoint = this.db.prepare(
      `INSERT INTO _rs_checkpoints (name, position, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET position = excluded.position, updated_at = excluded.updated_at`,
    );
  }

  // ---------------------------------------------------------------- port: reads

  collection(name: string): ReadCollection {
    return {
      find: async (filter, options) => {
        const id = pointId(filter);
        if (id !== null) {
          const doc = this.readPoint(() => this.pointSync(name, id, filter, options?.projection));
          return doc === null ? [] : [doc];
        }
        return this.readSingle(() => this.findSync(name, filter, options ?? {}));
      },
      findOne: async (filter, options) => {
        const id = pointId(filter);
        if (id !== null) return this.readPoint(() => this.pointSync(name, id, filter, options?.projection));
        return this.readSingle(() => this.findSync(name, filter, { ...options, limit: 1 })[0] ?? null);
      },
      countDocuments: async (filter) => this.readSingle(() => this.countSync(name, filter)),
    };
  }

  /** Diagnostics and tests: how a query would run. */
  explain(collection: string, filter: Filter, sort?: Sort): QueryPlan {
    return this.read(() => {
      const pointRead = pointId(filter) !== null;
      const coll = this.state.collections.get(this.physical(collection));
      if (!coll) return { table: null, where: null, params: [], exactFilter: true, sortPushedDown: true, pointRead };
      const where = translateFilter(filter, coll);
      return {
        table: coll.table,
        where: where.sql,
        params: where.params,
        exactFilter: where.exact,
        sortPushedDown: orderBy(sort, coll) !== null,
        pointRead,
      };
    });
  }

  /** Diagnostics and tests: how reads ran so far (copies the counters). */
  stats(): ReadStats {
    return { ...this.readStats };
  }

  private pointSync(name: string, id: string, filter: Filter, projection: FindOptions['projection']): Doc | null {
    const coll = this.state.collections.get(this.physical(name));
    if (!coll) return null;
    const stmt = (coll.stmts.byId ??= this.db.prepare(`SELECT doc FROM ${coll.table} WHERE _id = ?`).pluck());
    const text = stmt.get(id) as string | undefined;
    if (text === undefined) return null;
    const doc = parseDoc(text);
    if ('_org' in filter) {
      const want = filter._org;
      // The common case compares two strings; anything else (an array `_org`, an operator) is MongoDB's business.
      const match = typeof want === 'string' && typeof doc._org === 'string' ? want === doc._org : new Query({ _org: want } as Criteria, {}).test(doc);
      if (!match) return null;
    }
    return projection ? project([doc], projection)[0] : doc;
  }

  private findSync(name: string, filter: Filter, options: FindOptions): Doc[] {
    const coll = this.state.collections.get(this.physical(name));
    if (!coll) return [];
    const limit = options.limit ? Math.abs(options.limit) : 0;
    const where = translateFilter(filter, coll);
    const order = orderBy(options.sort, coll);
    const whereSql = where.sql === null ? '' : ` WHERE ${where.sql}`;
    let docs: Doc[];
    if (order !== null && where.exact && limit) {
      // Everything in SQL, and the sorter sees only keys and rowids: documents are read for the
      // page alone (sorting rows that carry their document cost ~3x more).
      const keys = order.map((k, i) => `${k.x} AS s${i}`).join(', ');
      const outer = order.map((k, i) => `k.s${i} ${k.dir}`).join(', ');
      const inner = order.map((k, i) => `s${i} ${k.dir}`).join(', ');
      const sql =
        `SELECT t.doc FROM (SELECT rowid AS r, ${keys} FROM ${coll.table}${whereSql} ORDER BY ${inner} LIMIT ?) AS k ` +
        `JOIN ${coll.table} AS t ON t.rowid = k.r ORDER BY ${outer}`;
      docs = (this.stmt(sql, true).all(...where.params, limit) as string[]).map(parseDoc);
    } else if (order !== null && where.exact) {
      const sql = `SELECT doc FROM ${coll.table}${whereSql} ORDER BY ${orderSql(order)}`;
      docs = (this.stmt(sql, true).all(...where.params) as string[]).map(parseDoc);
    } else if (order !== null) {
      // Candidates arrive in the final order: stop as soon as `limit` of them pass the re-check.
      const query = filterQuery(filter);
      docs = [];
      for (const text of this.stmt(`SELECT doc FROM ${coll.table}${whereSql} ORDER BY ${orderSql(order)}`, true).iterate(...where.params)) {
        const doc = parseDoc(text as string);
        if (!query.test(doc)) continue;
        docs.push(doc);
        if (docs.length === limit) break;
      }
    } else {
      const rows = this.stmt(`SELECT doc FROM ${coll.table}${whereSql}`, true).all(...where.params) as string[];
      docs = rows.map(parseDoc);
      if (!where.exact) {
        const query = filterQuery(filter);
        docs = docs.filter((d) => query.test(d));
      }
      docs = sortDocs(docs, options.sort ?? {});
      if (limit) docs = docs.slice(0, limit);
    }
    return options.projection ? project(docs, options.projection) : docs;
  }

  private countSync(name: string, filter: Filter): number {
    const coll = this.state.collections.get(this.physical(name));
    if (!coll) return 0;
    const where = translateFilter(filter, coll);
    const whereSql = where.sql === null ? '' : ` WHERE ${where.sql}`;
    if (where.exact) return this.stmt(`SELECT count(*) FROM ${coll.table}${whereSql}`, true).get(...where.params) as number;
    const query = filterQuery(filter);
    let n = 0;
    for (const text of this.stmt(`SELECT doc FROM ${coll.table}${whereSql}`, true).iterate(...where.params)) {
      if (query.test(parseDoc(text as string))) n++;
    }
    return n;
  }

  // ---------------------------------------------------------------- port: writes

  async ensureIndexes(collection: string, paths: string[]): Promise<void> {
    // Paths we cannot inline into a JSON path (array indexes, odd characters) simply stay in mingo.
    const wanted = [...new Set(paths)].filter((p) => p !== '_id' && p !== '_org' && PATH_RE.test(p));
    let physical = this.physical(collection);
    const done = this.read(() => {
      physical = this.physical(collection);
      const coll = this.state.collections.get(physical);
      return coll !== undefined && wanted.every((p) => coll.paths.has(p));
    });
    if (!done) {
      this.write(() => {
        physical = this.physical(collection);
        const coll = this.ensureTable(physical);
        for (const path of wanted) if (!coll.paths.has(path)) this.declarePath(physical, coll, path);
      });
    }
    // New indexes over existing rows need statistics now, and so does a collection that has rows
    // but no (or outgrown) statistics: this runs when a projection starts, a sensible moment.
    // A bulk load takes its statistics in endBulk, once the rows are in.
    if (!this.bulk.has(physical)) this.analyzeIfDue(physical, !done, false);
  }

  async commit(batch: ProjectionBatch): Promise<void> {
    await this.commitMany([batch]);
  }

  /**
   * Every batch's ops in order, then every checkpoint, in one write transaction: a page of events
   * for several projections costs one BEGIN/COMMIT instead of one per projection.
   */
  async commitMany(batches: ProjectionBatch[]): Promise<void> {
    if (batches.length === 0) return;
    const grown = new Set<string>();
    this.write(() => {
      for (const batch of batches) for (const op of batch.ops) this.applyOp(op, grown);
      // Only the last position per checkpoint survives the transaction, so only that one is written.
      const positions = new Map<string, Position>();
      for (const batch of batches) positions.set(batch.checkpoint, batch.position);
      const at = new Date().toISOString();
      for (const [name, position] of positions) this.upsertCheckpoint.run(name, positionToString(position), at);
    });
    this.lastWriteAt = Date.now();
    for (const physical of grown) this.grown.add(physical);
    if (grown.size > 0) this.scheduleAnalyze();
  }

  async beginBulk(physical: string): Promise<void> {
    if (this.bulk.has(physical)) return;
    const load = this.write((): BulkLoad => {
      if (this.state.aliases.has(physical) || [...this.state.aliases.values()].includes(physical)) {
        throw new Error(`collection '${physical}' is served under an alias; a bulk load needs a fresh physical collection`);
      }
      const coll = this.ensureTable(physical);
      const empty = this.db.prepare(`SELECT 1 FROM ${coll.table} LIMIT 1`).get() === undefined;
      // Indexes declared before the load (ensureIndexes usually runs first) are rebuilt in endBulk.
      const indexes = this.db
        .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`)
        .pluck()
        .all(`c_${physical}`) as string[];
      for (const index of indexes) this.db.exec(`DROP INDEX ${quote(index)}`);
      return { written: empty ? new Set() : null };
    });
    this.bulk.set(physical, load);
  }

  async endBulk(physical: string): Promise<void> {
    if (!this.bulk.has(physical)) return;
    // One write transaction per index (the collection is invisible, so nothing needs them all at
    // once): another process's write waits for one index build at most (about 0.1 s per 100k
    // documents), and this process's timers run in between.
    const pending = this.read(() => {
      const coll = this.state.collections.get(physical);
      return coll ? this.indexDefinitions(physical, coll).length : 0;
    });
    for (let i = 0; i < pending; i++) {
      this.write(() => {
        const coll = this.state.collections.get(physical);
        const sql = coll ? this.indexDefinitions(physical, coll)[i] : undefined;
        if (sql) this.db.exec(sql);
      });
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Indexes declared meanwhile (by this instance during the awaits) and the statistics.
    const rows = this.write(() => this.finishBulk(physical));
    this.bulk.delete(physical);
    if (rows !== null) this.analyzedAt.set(physical, rows);
  }

  /** Builds a bulk load's (remaining) indexes and its statistics, inside the caller's write transaction; returns the analyzed row count. */
  private finishBulk(physical: string): number | null {
    const coll = this.state.collections.get(physical);
    if (!coll) return null; // dropped meanwhile: nothing to build
    this.createIndexes(physical, coll);
    // Sampled: sqlite_stat1 keeps only average rows per index prefix, which a sample estimates well,
    // and a full scan per index is a tenth of a rebuild's time.
    return this.analyze(physical, true);
  }

  private applyOp(op: WriteOp, grown: Set<string>): void {
    const physical = this.physical(op.collection);
    if (op.op === 'delete') {
      const coll = this.state.collections.get(physical);
      if (coll) (coll.stmts.remove ??= this.db.prepare(`DELETE FROM ${coll.table} WHERE _id = ?`)).run(op.id);
      return;
    }
    const bulk = this.bulk.get(physical);
    if (!bulk) grown.add(physical);
    if (op.op === 'insert') {
      const id = op.doc._id;
      if (this.writeDoc(physical, this.ensureTable(physical), id, op.doc, 'insertIfAbsent')) bulk?.written?.add(id);
      return;
    }
    const existing = this.state.collections.get(physical);
    const absent = existing === undefined || (bulk?.written != null && !bulk.written.has(op.id));
    // The stored row as [doc, _pos, _org, ...columns], so a replace can tell which columns changed.
    const row = absent ? undefined : (this.currentRow(existing).get(op.id) as unknown[] | undefined);
    if (row && typeof row[1] === 'number' && row[1] >= op.pos) return; // already past this event
    if (!row && !op.upsert) return;
    const coll = existing ?? this.ensureTable(physical);
    const doc: Doc = row ? parseDoc(row[0] as string) : { _id: op.id };
    applyUpdate(doc, op.update, !row);
    doc._pos = op.pos;
    if (doc._id !== op.id) throw new Error(`update of ${op.collection}/${op.id} would modify the immutable field '_id'`);
    if (row) {
      this.writeDoc(physical, coll, op.id, doc, 'replace', row);
    } else {
      this.writeDoc(physical, coll, op.id, doc, 'insert');
      bulk?.written?.add(op.id);
    }
  }

  // ---------------------------------------------------------------- planner statistics

  /**
   * Plan choice between "filter index then sort" and "walk the sort index" depends on how many rows
   * match, which SQLite only knows from ANALYZE (sqlite_stat1/stat4); without statistics a selective
   * filter was seen to take 20x longer. A collection is due once it holds MIN_ANALYZE_ROWS and twice
   * the rows of its last analysis (or `force`), so the cost stays proportional to the writes; other
   * connections pick the statistics up on their own.
   */
  private analyzeIfDue(physical: string, force: boolean, sampled: boolean): boolean {
    try {
      const coll = this.read(() => this.state.collections.get(physical));
      if (!coll || this.bulk.has(physical)) return false;
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
    return (this.stmt(`SELECT max(rowid) FROM ${coll.table}`, true).get() as number | null) ?? 0;
  }

  private lastAnalyzed(physical: string): number {
    let last = this.analyzedAt.get(physical);
    if (last === undefined) {
      // The first number of a stat1 row is the table's row count when it was analyzed.
      const hasStat1 = this.stmt("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'", true).get() !== undefined;
      const stat = hasStat1 ? this.stmt('SELECT stat FROM sqlite_stat1 WHERE tbl = ? LIMIT 1', true).get(`c_${physical}`) : undefined;
      last = Number.parseInt(String(stat ?? '0'), 10) || 0;
      this.analyzedAt.set(physical, last);
    }
    return last;
  }

  /** ANALYZE one table (`sampled`: bounded work, see SAMPLED_ANALYSIS_ROWS); returns the row count it describes. */
  private analyze(physical: string, sampled: boolean): number {
    const coll = this.state.collections.get(physical);
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

  // ---------------------------------------------------------------- port: checkpoints, parking, meta

  async getCheckpoint(name: string): Promise<Position | null> {
    const row = this.stmt('SELECT position FROM _rs_checkpoints WHERE name = ?', true).get(name) as string | undefined;
    return row === undefined ? null : positionFromString(row);
  }
  async listCheckpoints(): Promise<CheckpointRecord[]> {
    const rows = this.stmt('SELECT name, position, updated_at AS updatedAt FROM _rs_checkpoints ORDER BY name').all() as {
      name: string;
      position: string;
      updatedAt: string;
    }[];
    return rows.map((r) => ({ name: r.name, position: positionFromString(r.position), updatedAt: r.updatedAt }));
  }

  async deleteCheckpoint(name: string): Promise<void> {
    this.stmt('DELETE FROM _rs_checkpoints WHERE name = ?').run(name);
  }

  async park(event: ParkedEvent): Promise<void> {
    // Re-parking the same event (redelivery) refreshes the record instead of duplicating it.
    this.stmt(
      `INSERT INTO _rs_parked (projection, event_id, event_type, stream_id, position, error, parked_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (projection, event_id) DO UPDATE SET event_type = excluded.event_type, stream_id = excluded.stream_id,
         position = excluded.position, error = excluded.error, parked_at = excluded.parked_at`,
    ).run(event.projection, event.eventId, event.eventType, event.streamId, positionToString(event.position), event.error, event.parkedAt);
  }

  async listParked(projection?: string): Promise<ParkedEvent[]> {
    const sql = `SELECT projection, event_id AS eventId, event_type AS eventType, stream_id AS streamId, position, error, parked_at AS parkedAt
      FROM _rs_parked${projection === undefined ? '' : ' WHERE projection = ?'} ORDER BY parked_at, projection, event_id`;
    const rows = this.stmt(sql).all(...(projection === undefined ? [] : [projection])) as (Omit<ParkedEvent, 'position'> & { position: string })[];
    return rows.map((r) => ({ ...r, position: positionFromString(r.position) }));
  }

  async swapCollections(aliases: Record<string, string>, checkpoint: { name: string; position: Position }): Promise<void> {
    const analyzed = this.write(() => {
      const previous: string[] = [];
      const stats = new Map<string, number>();
      for (const [logical, physical] of Object.entries(aliases)) {
        const before = this.physical(logical);
        const target = this.ensureTable(physical); // an empty rebuild still replaces the old data
        // Carry the declarations over, so a rebuild that forgot ensureIndexes keeps its pushdown.
        const old = this.state.collections.get(before);
        if (old) for (const path of old.paths.keys()) if (!target.paths.has(path)) this.declarePath(physical, target, path);
        // A bulk load still open (endBulk forgotten) gets its indexes and statistics before it goes
        // live; a collection loaded without one gets statistics when it has outgrown its last ones.
        if (this.bulk.has(physical)) {
          const rows = this.finishBulk(physical);
          if (rows !== null) stats.set(physical, rows);
        } else {
          const rows = this.rowEstimate(target);
          if (rows >= MIN_ANALYZE_ROWS && rows >= 2 * this.lastAnalyzed(physical)) stats.set(physical, this.analyze(physical, false));
        }
        if (physical === logical) {
          this.stmt('DELETE FROM _rs_aliases WHERE logical = ?').run(logical);
          this.state.aliases.delete(logical);
        } else {
          this.stmt('INSERT INTO _rs_aliases (logical, physical) VALUES (?, ?) ON CONFLICT (logical) DO UPDATE SET physical = excluded.physical').run(
            logical,
            physical,
          );
          this.state.aliases.set(logical, physical);
        }
        if (before !== physical) previous.push(before);
      }
      this.upsertCheckpoint.run(checkpoint.name, positionToString(checkpoint.position), new Date().toISOString());
      const live = new Set([...this.state.aliases.values()]);
      for (const name of previous) if (!live.has(name)) this.dropTable(name);
      this.bump();
      return stats;
    });
    for (const physical of Object.values(aliases)) this.bulk.delete(physical);
    for (const [physical, rows] of analyzed) this.analyzedAt.set(physical, rows);
  }

  async dropCollection(physical: string): Promise<void> {
    this.write(() => this.dropTable(physical));
  }

  async putMeta(key: string, value: unknown): Promise<void> {
    this.stmt('INSERT INTO _rs_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(
      key,
      JSON.stringify(value ?? null),
    );
  }

  async getMeta<T = unknown>(key: string): Promise<T | null> {
    const text = this.stmt('SELECT value FROM _rs_meta WHERE key = ?', true).get(key) as string | undefined;
    return text === undefined ? null : (JSON.parse(text) as T);
  }

  async close(): Promise<void> {
    if (this.analyzeTimer !== null) clearTimeout(this.analyzeTimer);
    this.analyzeTimer = null;
    if (!this.db.open) return;
    this.statements.clear();
    this.db.close();
  }

  // ---------------------------------------------------------------- state and schema

  /**
   * A read that is one primary-key lookup. It only needs the cached alias to name the right table:
   * if another connection committed a swap between the data_version check and the lookup, the old
   * table is gone with it and the lookup fails, so it is retried in a read transaction.
   */
  private readPoint<T>(fn: () => T): T {
    if (this.cacheIsCurrent()) {
      try {
        const result = fn();
        this.readStats.direct++;
        return result;
      } catch {
        // fall through: see above
      }
    }
    this.readStats.transactional++;
    return this.read(fn);
  }

  /**
   * A read that is one statement (plus JavaScript). Its SQL depends on the cached path flags, so a
   * commit by another connection between the check and the statement (data_version moved) sends it
   * to a read transaction, where state and query share one snapshot.
   */
  private readSingle<T>(fn: () => T): T {
    if (this.cacheIsCurrent()) {
      const seen = this.seenDataVersion;
      try {
        const result = fn();
        if ((this.dataVersion.get() as number) === seen) {
          this.readStats.direct++;
          return result;
        }
      } catch {
        // fall through: e.g. a table dropped by a swap committed meanwhile
      }
    }
    this.readStats.transactional++;
    return this.read(fn);
  }

  /** No other connection committed since the cached state was last checked (own commits keep it current). */
  private cacheIsCurrent(): boolean {
    return this.state.version !== -1 && (this.dataVersion.get() as number) === this.seenDataVersion;
  }

  private read<T>(fn: () => T): T {
    return this.tx.deferred(() => {
      this.refresh();
      return fn();
    }) as T;
  }

  private write<T>(fn: () => T): T {
    try {
      return this.tx.immediate(() => {
        this.refresh();
        return fn();
      }) as T;
    } catch (err) {
      this.state.version = -1; // the rollback may have undone schema changes already applied to the cache
      throw err;
    }
  }

  /** Reloads the cached schema state when any process changed it. Runs inside the caller's snapshot. */
  private refresh(): void {
    const dataVersion = this.dataVersion.get() as number;
    if (dataVersion === this.seenDataVersion && this.state.version !== -1) return;
    const version = this.stateVersion.get() as number;
    this.seenDataVersion = dataVersion;
    if (version === this.state.version) return;
    const aliases = new Map<string, string>();
    for (const r of this.stmt('SELECT logical, physical FROM _rs_aliases').all() as { logical: string; physical: string }[]) {
      aliases.set(r.logical, r.physical);
    }
    const collections = new Map<string, CollectionState>();
    for (const r of this.stmt('SELECT name, org_flags AS orgFlags FROM _rs_collections').all() as { name: string; orgFlags: number }[]) {
      collections.set(r.name, { table: tableName(r.name), orgFlags: r.orgFlags, paths: new Map(), stmts: {} });
    }
    for (const r of this.stmt('SELECT coll, path, flags FROM _rs_paths').all() as { coll: string; path: string; flags: number }[]) {
      collections.get(r.coll)?.paths.set(r.path, pathState(r.path, r.flags));
    }
    this.statements.clear(); // statements may reference tables another process dropped
    this.state = { version, aliases, collections };
    this.readStats.stateLoads++;
  }

  private bump(): void {
    this.state.version = this.stmt('UPDATE _rs_state SET v = v + 1 WHERE k = 1 RETURNING v', true).get() as number;
  }

  private physical(name: string): string {
    return this.state.aliases.get(name) ?? name;
  }

  private ensureTable(physical: string): CollectionState {
    const found = this.state.collections.get(physical);
    if (found) return found;
    if (physical === '') throw new Error('collection name must not be empty');
    const table = tableName(physical);
    this.db.exec(`CREATE TABLE IF NOT EXISTS ${table} (_id TEXT PRIMARY KEY, _org TEXT, _pos INTEGER, doc TEXT NOT NULL)`);
    const coll: CollectionState = { table, orgFlags: 0, paths: new Map(), stmts: {} };
    if (!this.bulk.has(physical)) this.createIndexes(physical, coll);
    this.stmt('INSERT OR IGNORE INTO _rs_collections (name, org_flags) VALUES (?, 0)').run(physical);
    this.state.collections.set(physical, coll);
    this.bump();
    return coll;
  }

  /** The secondary indexes: `(_org, _id)` and `(_org, column)` per declared path. */
  private indexDefinitions(physical: string, coll: CollectionState): string[] {
    return [
      `CREATE INDEX IF NOT EXISTS ${quote(`ix:${physical}#org`)} ON ${coll.table} (_org, _id)`,
      ...[...coll.paths].map(([path, p]) => `CREATE INDEX IF NOT EXISTS ${quote(`ix:${physical}:${path}`)} ON ${coll.table} (_org, ${p.column})`),
    ];
  }

  private createIndexes(physical: string, coll: CollectionState): void {
    for (const sql of this.indexDefinitions(physical, coll)) this.db.exec(sql);
  }

  private declarePath(physical: string, coll: CollectionState, path: string): void {
    const state = pathState(path, 0);
    // Existing documents decide the flags once; from then on every write maintains them.
    for (const text of this.stmt(`SELECT doc FROM ${coll.table}`, true).iterate()) {
      state.flags |= inspectPath(parseDoc(text as string), state.segs).flags;
      if (state.flags === (UNSAFE | BOOL | NULLV)) break;
    }
    const columns = this.db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(`c_${physical}`) as string[];
    if (!columns.includes(`p:${path}`)) this.db.exec(`ALTER TABLE ${coll.table} ADD COLUMN ${state.column}`);
    // For scalars json_extract returns exactly what inspectPath writes (booleans as 1/0, null as NULL).
    this.db.exec(`UPDATE ${coll.table} SET ${state.column} = json_extract(doc, '$.${path}')`);
    // A bulk load builds its indexes once its rows are in (endBulk).
    if (!this.bulk.has(physical)) this.db.exec(`CREATE INDEX IF NOT EXISTS ${quote(`ix:${physical}:${path}`)} ON ${coll.table} (_org, ${state.column})`);
    this.stmt('INSERT OR REPLACE INTO _rs_paths (coll, path, flags) VALUES (?, ?, ?)').run(physical, path, state.flags);
    coll.paths.set(path, state);
    coll.stmts = {}; // the write statements list the columns
    this.bump();
  }

  private dropTable(physical: string): void {
    this.db.exec(`DROP TABLE IF EXISTS ${tableName(physical)}`);
    this.stmt('DELETE FROM _rs_collections WHERE name = ?').run(physical);
    this.stmt('DELETE FROM _rs_paths WHERE coll = ?').run(physical);
    this.state.collections.delete(physical);
    this.statements.clear();
    this.bulk.delete(physical);
    this.analyzedAt.delete(physical);
    this.grown.delete(physical);
    this.bump();
  }

  private currentRow(coll: CollectionState): Statement {
    const columns = this.columnsOf(coll).map(([, p]) => `, ${p.column}`).join('');
    return (coll.stmts.current ??= this.db.prepare(`SELECT doc, _pos, _org${columns} FROM ${coll.table} WHERE _id = ?`).raw());
  }

  /** The declared paths in the order the write statements (and `current`) list their columns. */
  private columnsOf(coll: CollectionState): [string, PathState][] {
    return (coll.stmts.columns ??= [...coll.paths]);
  }

  /**
   * Writes a document with its materialized columns: `insert` (absent before) or `insertIfAbsent`
   * (keeps an existing document), or replaces an existing one whose stored row (`current`: doc,
   * _pos, _org, then the columns) is given. Returns whether it was written.
   */
  private writeDoc(physical: string, coll: CollectionState, id: string, doc: Doc, mode: 'insert' | 'insertIfAbsent', current?: undefined): boolean;
  private writeDoc(physical: string, coll: CollectionState, id: string, doc: Doc, mode: 'replace', current: unknown[]): boolean;
  private writeDoc(physical: string, coll: CollectionState, id: string, doc: Doc, mode: 'insert' | 'insertIfAbsent' | 'replace', current?: unknown[]): boolean {
    const stmts = coll.stmts;
    const columns = this.columnsOf(coll);
    const org = orgColumn(doc);
    let found = 0; // flags seen on this document across all paths: most documents reveal nothing new
    const flags: number[] = [];
    const colValues: (string | number | null)[] = [];
    for (const [, p] of columns) {
      const inspected = inspectPath(doc, p.segs);
      colValues.push(inspected.value);
      flags.push(inspected.flags);
      found |= inspected.flags & ~p.flags;
    }
    let stmt: Statement;
    let values: unknown[];
    if (mode === 'replace' && current) {
      // Only the columns whose value changed are set: SQLite maintains exactly the indexes over the
      // columns an UPDATE names, and every index starts with `_org`, so setting all of them
      // rewrote nine index entries per update even when only the JSON changed.
      const wide = columns.length > 30; // a bitmask key per changed-column set, while it fits
      let mask = 0;
      values = [posColumn(doc), JSON.stringify(doc)];
      if (wide || org !== current[2]) {
        mask |= 1;
        values.push(org);
      }
      for (let i = 0; i < columns.length; i++) {
        if (!wide && colValues[i] === current[3 + i]) continue;
        mask |= 2 ** (i + 1);
        values.push(colValues[i]);
      }
      values.push(id);
      const key = wide ? -1 : mask;
      const byMask = (stmts.replace ??= new Map());
      let prepared = byMask.get(key);
      if (!prepared) {
        const set = ['_pos = ?', 'doc = ?'];
        if (wide || mask & 1) set.push('_org = ?');
        columns.forEach(([, p], i) => {
          if (wide || mask & (2 ** (i + 1))) set.push(`${p.column} = ?`);
        });
        prepared = this.db.prepare(`UPDATE ${coll.table} SET ${set.join(', ')} WHERE _id = ?`);
        byMask.set(key, prepared);
      }
      stmt = prepared;
    } else {
      values = [id, org, posColumn(doc), JSON.stringify(doc), ...colValues];
      const sql = `INSERT INTO ${coll.table} (${['_id', '_org', '_pos', 'doc', ...columns.map(([, p]) => p.column)].join(', ')}) VALUES (?${', ?'.repeat(3 + columns.length)})`;
      stmt = mode === 'insert' ? (stmts.insert ??= this.db.prepare(sql)) : (stmts.insertIfAbsent ??= this.db.prepare(`${sql} ON CONFLICT (_id) DO NOTHING`));
    }
    if (stmt.run(values).changes === 0) return false;
    // Record what the document reveals about its paths (see UNSAFE, BOOL, NULLV).
    if (doc._org !== undefined && typeof doc._org !== 'string' && !(coll.orgFlags & UNSAFE)) {
      coll.orgFlags |= UNSAFE;
      this.stmt('UPDATE _rs_collections SET org_flags = ? WHERE name = ?').run(coll.orgFlags, physical);
      this.bump();
    }
    if (found === 0) return true;
    columns.forEach(([path, p], i) => {
      if ((flags[i] & ~p.flags) === 0) return;
      p.flags |= flags[i];
      this.stmt('UPDATE _rs_paths SET flags = ? WHERE coll = ? AND path = ?').run(p.flags, physical, path);
      this.bump();
    });
    return true;
  }

  private stmt(sql: string, pluck = false): Statement {
    const key = pluck ? `P${sql}` : `R${sql}`;
    let s = this.statements.get(key);
    if (!s) {
      s = this.db.prepare(sql);
      if (pluck) s.pluck();
      this.statements.set(key, s);
    }
    return s;
  }
}

/** The `_id` of a filter that is exactly `{ _id: <string> }`, optionally with `_org`; else null. */
function pointId(filter: Filter): string | null {
  let id: string | null = null;
  for (const key of Object.keys(filter)) {
    if (key === '_id') {
      const value = filter._id;
      if (typeof value !== 'string') return null;
      id = value;
    } else if (key !== '_org') return null;
  }
  return id;
}

// ------------------------------------------------------------------ documents and updates

function tableName(physical: string): string {
  return quote(`c_${physical}`);
}

function parseDoc(text: string): Doc {
  return JSON.parse(text) as Doc;
}

function orgColumn(doc: Doc): string | null {
  return typeof doc._org === 'string' ? doc._org : null;
}

function posColumn(doc: Doc): number | null {
  return typeof doc._pos === 'number' ? doc._pos : null;
}

/** Applies MongoDB update operators; `$setOnInsert` (not in mingo) acts as `$set` when the update inserts. */
function applyUpdate(doc: Doc, update: Update, inserting: boolean): void {
  const $setOnInsert = update.$setOnInsert;
  let rest = update;
  if ('$setOnInsert' in update) {
    // Copied only when present: the rest-spread on every update showed up in rebuild profiles.
    rest = { ...update };
    delete rest.$setOnInsert;
  }
  const onInsert = inserting && $setOnInsert && Object.keys($setOnInsert).length > 0 ? $setOnInsert : null;
  if (plainSetUnset(doc, rest, onInsert)) return;
  if (Object.keys(rest).length > 0) mingoUpdate(doc, rest as Modifier);
  if (onInsert) mingoUpdate(doc, { $set: onInsert } as Modifier);
}

/**
 * The projections' everyday update ($set/$unset of plain dotted paths through objects), applied
 * directly: mingo's update() rebuilds its operator tables on every call (~100 µs). Returns false,
 * having changed nothing, for anything else (other operators, array or scalar intermediates,
 * overlapping paths), which then goes to mingo.
 */
function plainSetUnset(doc: Doc, update: Update, onInsert: Record<string, unknown> | null): boolean {
  let dotted = false;
  let sources = 0;
  for (const op of Object.keys(update)) {
    if (op !== '$set' && op !== '$unset') return false;
    const fields = update[op];
    for (const path of Object.keys(fields)) {
      if (!PATH_RE.test(path)) return false;
      dotted ||= path.includes('.');
    }
    sources++;
  }
  if (onInsert) {
    for (const path of Object.keys(onInsert)) {
      if (!PATH_RE.test(path)) return false;
      dotted ||= path.includes('.');
    }
    sources++;
  }
  if (!dotted) return plainTopLevel(doc, update, onInsert, sources);
  const sets: [string[], unknown][] = [];
  const unsets: string[][] = [];
  for (const [op, fields] of Object.entries(update)) {
    for (const [path, value] of Object.entries(fields)) {
      if (op === '$set') sets.push([path.split('.'), value]);
      else unsets.push(path.split('.'));
    }
  }
  for (const [path, value] of Object.entries(onInsert ?? {})) sets.push([path.split('.'), value]);
  const all = [...sets.map(([segs]) => segs), ...unsets].map((segs) => segs.join('.'));
  const sorted = [...all].sort();
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i] === sorted[i - 1] || sorted[i].startsWith(`${sorted[i - 1]}.`)) return false; // MongoDB: conflict
  }
  // Every existing intermediate must be a plain object (MongoDB errors or indexes arrays otherwise).
  const walkable = (segs: string[]): boolean => {
    let v: unknown = doc;
    for (let i = 0; i < segs.length - 1; i++) {
      v = (v as Doc)[segs[i]];
      if (v === undefined) return true;
      if (!isPlainObject(v)) return false;
    }
    return true;
  };
  if (!sets.every(([segs]) => walkable(segs)) || !unsets.every(walkable)) return false;
  for (const [segs, value] of sets) {
    let v = doc;
    for (let i = 0; i < segs.length - 1; i++) v = (v[segs[i]] ??= {}) as Doc;
    v[segs[segs.length - 1]] = value;
  }
  for (const segs of unsets) {
    let v: Doc | undefined = doc;
    for (let i = 0; i < segs.length - 1 && v; i++) v = v[segs[i]] as Doc | undefined;
    if (v) delete v[segs[segs.length - 1]];
  }
  return true;
}

/**
 * plainSetUnset for top-level fields only (what a Created event's `$set` is, so every document of a
 * rebuild comes through here): no path to walk, and a conflict can only be the same field named by
 * two of the operators.
 */
function plainTopLevel(doc: Doc, update: Update, onInsert: Record<string, unknown> | null, sources: number): boolean {
  if (sources > 1) {
    const seen = new Set<string>();
    for (const fields of [...Object.values(update), onInsert ?? {}]) {
      for (const path of Object.keys(fields)) {
        if (seen.has(path)) return false; // MongoDB: conflict
        seen.add(path);
      }
    }
  }
  const sets = update.$set;
  if (sets) for (const path of Object.keys(sets)) doc[path] = sets[path];
  if (onInsert) for (const path of Object.keys(onInsert)) doc[path] = onInsert[path];
  const unsets = update.$unset;
  if (unsets) for (const path of Object.keys(unsets)) delete doc[path];
  return true;
}

function isPlainObject(v: unknown): v is Doc {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date) && !(v instanceof RegExp);
}

function pathState(path: string, flags: number): PathState {
  return { flags, segs: path.split('.'), column: quote(`p:${path}`) };
}

/** A document's flags at a path (see the flag constants) and its column value: what json_extract would return for a scalar. */
function inspectPath(doc: Doc, segs: string[]): { flags: number; value: string | number | null } {
  let v: unknown = doc;
  for (const seg of segs) {
    if (Array.isArray(v)) return { flags: UNSAFE, value: null };
    if (typeof v !== 'object' || v === null) return { flags: 0, value: null }; // a scalar on the way: the path is missing
    v = (v as Doc)[seg];
  }
  if (v === undefined) return { flags: 0, value: null };
  if (v === null || (typeof v === 'number' && !Number.isFinite(v))) return { flags: NULLV, value: null }; // JSON writes NaN as null
  if (typeof v === 'boolean') return { flags: BOOL, value: v ? 1 : 0 };
  if (typeof v === 'string' || typeof v === 'number') return { flags: 0, value: v };
  return { flags: UNSAFE, value: null }; // arrays, objects, Dates (conservative), bigints
}

function project(docs: Doc[], projection: Record<string, 0 | 1>): Doc[] {
  return new Query({}, {}).find<Doc>(docs, projection as Record<string, 0 | 1>).all();
}

// ------------------------------------------------------------------ filter translation

function jsonType(path: string): string {
  return `json_type(doc, '$.${path}')`;
}

type Field =
  /** A TEXT column (`_id`, `_org`): only string comparisons are pushed (affinity would coerce numbers). */
  | { kind: 'column'; x: string }
  /** A materialized path: `x` the column, `t` the JSON type (parses the document: only as a guard). */
  | { kind: 'json'; x: string; t: string; bool: boolean; nullv: boolean };

function fieldOf(path: string, coll: CollectionState): Field | null {
  if (path === '_id') return { kind: 'column', x: '_id' };
  if (path === '_org') return coll.orgFlags & UNSAFE ? null : { kind: 'column', x: '_org' };
  const p = coll.paths.get(path);
  if (!p || p.flags & UNSAFE) return null;
  return { kind: 'json', x: p.column, t: jsonType(path), bool: (p.flags & BOOL) !== 0, nullv: (p.flags & NULLV) !== 0 };
}

function and(parts: Sql[]): Sql {
  const sqls: string[] = [];
  const params: unknown[] = [];
  let exact = true;
  for (const p of parts) {
    exact &&= p.exact;
    if (p.sql === null) continue;
    sqls.push(p.sql);
    params.push(...p.params);
  }
  if (sqls.length === 0) return { sql: null, params, exact };
  return { sql: sqls.length === 1 ? sqls[0] : sqls.map((s) => `(${s})`).join(' AND '), params, exact };
}

function or(parts: Sql[]): Sql {
  const exact = parts.every((p) => p.exact);
  if (parts.length === 0) return FALSE_EXACT;
  if (parts.some((p) => p.sql === null)) return { sql: null, params: [], exact };
  return { sql: parts.map((p) => `(${p.sql})`).join(' OR '), params: parts.flatMap((p) => p.params), exact };
}

/**
 * Translates a MongoDB filter. Atoms may evaluate to SQL NULL only where MongoDB says "no match",
 * so a NULL can be read as false; a negation ($nor) therefore wraps its operand in coalesce(…, 0).
 */
function translateFilter(filter: Filter, coll: CollectionState): Sql {
  const parts: Sql[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(value)) parts.push(and(value.map((f) => translateFilter(f as Filter, coll))));
    else if (key === '$or' && Array.isArray(value)) parts.push(or(value.map((f) => translateFilter(f as Filter, coll))));
    else if (key === '$nor' && Array.isArray(value)) {
      const inner = or(value.map((f) => translateFilter(f as Filter, coll)));
      if (!inner.exact) parts.push(TRUE_INEXACT); // a superset cannot be negated
      else parts.push(inner.sql === null ? FALSE_EXACT : { sql: `NOT coalesce(${inner.sql}, 0)`, params: inner.params, exact: true });
    } else if (key.startsWith('$')) parts.push(TRUE_INEXACT);
    else parts.push(translateField(key, value, coll));
  }
  return and(parts);
}

function translateField(path: string, value: unknown, coll: CollectionState): Sql {
  const field = fieldOf(path, coll);
  if (!field) return TRUE_INEXACT;
  if (isPlainObject(value) && Object.keys(value).length > 0 && Object.keys(value).every((k) => k.startsWith('$'))) {
    // A literal `$regex` (what filter wildcards compile to) takes its `$options` along.
    const pattern = '$regex' in value ? parseLiteralPattern(value.$regex, value.$options) : null;
    return and(
      Object.entries(value)
        .filter(([op]) => !(pattern && op === '$options'))
        .map(([op, arg]) => (pattern && op === '$regex' ? literal(field, pattern) : translateOp(field, op, arg))),
    );
  }
  return eq(field, value) ?? TRUE_INEXACT;
}

function translateOp(field: Field, op: string, arg: unknown): Sql {
  switch (op) {
    case '$eq':
      return eq(field, arg) ?? TRUE_INEXACT;
    case '$ne':
      return ne(field, arg) ?? TRUE_INEXACT;
    case '$in': {
      if (!Array.isArray(arg)) return TRUE_INEXACT;
      if (arg.length > 0 && arg.every((v) => typeof v === 'string')) {
        return { sql: `${field.x} IN (${arg.map(() => '?').join(', ')})`, params: arg, exact: true };
      }
      const parts = arg.map((v) => eq(field, v));
      return parts.every((p): p is Sql => p !== null) ? or(parts) : TRUE_INEXACT;
    }
    case '$nin': {
      if (!Array.isArray(arg)) return TRUE_INEXACT;
      const parts = arg.map((v) => ne(field, v));
      return parts.every((p): p is Sql => p !== null) ? and(parts) : TRUE_INEXACT;
    }
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      return range(field, op, arg) ?? TRUE_INEXACT;
    case '$exists': {
      const t = field.kind === 'json' && field.nullv ? field.t : field.x;
      if (field.x === '_id') return arg ? { sql: null, params: [], exact: true } : FALSE_EXACT;
      // Unary + keeps the planner off an index for null tests: "missing" is rarely selective
      // (deleteTime), and with statistics SQLite was seen to prefer such an index at 100x the cost.
      return { sql: `+${t} IS ${arg ? 'NOT NULL' : 'NULL'}`, params: [], exact: true };
    }
    default:
      return TRUE_INEXACT; // $regex, $options, $not, $elemMatch, ...: left to mingo
  }
}

function eq(field: Field, v: unknown): Sql | null {
  if (field.kind === 'column') {
    if (typeof v === 'string') return { sql: `${field.x} = ?`, params: [v], exact: true };
    if (v === null) return { sql: `${field.x} IS NULL`, params: [], exact: true };
    return null;
  }
  if (v === null) return { sql: `+${field.x} IS NULL`, params: [], exact: true }; // null or missing; + as in $exists
  if (typeof v === 'string') return { sql: `${field.x} = ?`, params: [v], exact: true };
  if (typeof v === 'number' && Number.isFinite(v)) {
    return { sql: field.bool ? `${field.x} = ? AND ${field.t} IN ('integer', 'real')` : `${field.x} = ?`, params: [v], exact: true };
  }
  if (typeof v === 'boolean') return { sql: `${field.x} = ? AND ${field.t} = '${v}'`, params: [v ? 1 : 0], exact: true };
  return null;
}

/**
 * Prefix, suffix and contains matches in time linear in the value: substr compares one slice, the
 * contains function searches with Boyer-Moore. Only strings match, as with `$regex`: `x >= ''`
 * holds for TEXT alone. SQLite's text functions stop at a NUL, so a suffix compares the UTF-8 bytes
 * (a blob's substr counts bytes), and a text holding a NUL stays in mingo.
 */
function literal(field: Field, { kind, text, ignoreCase }: LiteralPattern): Sql {
  if (text.includes('\0')) return TRUE_INEXACT;
  const x = field.x;
  if (ignoreCase) return { sql: `${MATCH_CI_FN}(${x}, ?, ?)`, params: [kind, text], exact: true };
  if (text === '') return { sql: `${x} >= ''`, params: [], exact: true };
  if (kind === 'contains') return { sql: `${CONTAINS_FN}(${x}, ?)`, params: [text], exact: true };
  if (kind === 'suffix') {
    const tail = `substr(CAST(${x} AS BLOB), -length(CAST(? AS BLOB))) = CAST(? AS BLOB)`;
    return { sql: `${x} >= '' AND ${tail}`, params: [text, text], exact: true };
  }
  // `x >= ?` holds for every string with the prefix and lets the planner range over the index.
  return { sql: `${x} >= ? AND substr(${x}, 1, length(?)) = ?`, params: [text, text, text], exact: true };
}

/** Two-valued (never NULL): MongoDB's $ne matches missing fields. */
function ne(field: Field, v: unknown): Sql | null {
  if (field.kind === 'column') {
    if (typeof v === 'string') return { sql: `${field.x} IS NOT ?`, params: [v], exact: true };
    if (v === null) return { sql: `${field.x} IS NOT NULL`, params: [], exact: true };
    return null;
  }
  if (v === null) return { sql: `+${field.x} IS NOT NULL`, params: [], exact: true };
  if (typeof v === 'string') return { sql: `${field.x} IS NOT ?`, params: [v], exact: true };
  if (typeof v === 'number' && Number.isFinite(v)) {
    return {
      sql: field.bool ? `(${field.x} IS NOT ? OR coalesce(${field.t} IN ('true', 'false'), 0))` : `${field.x} IS NOT ?`,
      params: [v],
      exact: true,
    };
  }
  if (typeof v === 'boolean') return { sql: `${field.t} IS NOT '${v}'`, params: [], exact: true };
  return null;
}

/**
 * MongoDB compares only within a type bracket; SQLite orders NULL < numbers < TEXT. So `$lt` a string
 * also needs `x >= ''` (x is TEXT) and `$gt` a number also needs `x < ''` (x is not TEXT).
 */
function range(field: Field, op: '$gt' | '$gte' | '$lt' | '$lte', v: unknown): Sql | null {
  const cmp = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' }[op];
  const lowerBound = op === '$gt' || op === '$gte';
  if (typeof v === 'string') {
    const sql = lowerBound || field.kind === 'column' ? `${field.x} ${cmp} ?` : `${field.x} ${cmp} ? AND ${field.x} >= ''`;
    return { sql, params: [v], exact: true };
  }
  if (field.kind === 'column' || typeof v !== 'number' || !Number.isFinite(v)) return null;
  const parts = [`${field.x} ${cmp} ?`];
  if (lowerBound) parts.push(`${field.x} < ''`);
  if (field.bool) parts.push(`${field.t} IN ('integer', 'real')`);
  return { sql: parts.join(' AND '), params: [v], exact: true };
}

/**
 * ORDER BY for a sort when every key can be ordered by SQL exactly like MongoDB (null and missing
 * first ascending, numbers before strings, strings by code point) — or null. `_id` breaks ties, in
 * SQL and in sortDocs alike, so both paths return the same order.
 */
function orderBy(sort: Sort | undefined, coll: CollectionState): OrderKey[] | null {
  const keys: OrderKey[] = [];
  for (const [path, dir] of Object.entries(sort ?? {})) {
    const d = dir === -1 ? 'DESC' : 'ASC';
    if (path === '_id') {
      keys.push({ x: '_id', dir: d });
      return keys; // _id is unique: later keys never matter
    }
    if (path === '_org') {
      if (coll.orgFlags & UNSAFE) return null;
      keys.push({ x: '_org', dir: d });
      continue;
    }
    const p = coll.paths.get(path);
    if (!p || p.flags & (UNSAFE | BOOL)) return null;
    keys.push({ x: p.column, dir: d });
  }
  keys.push({ x: '_id', dir: 'ASC' });
  return keys;
}

interface OrderKey {
  x: string;
  dir: 'ASC' | 'DESC';
}

const orderSql = (keys: OrderKey[]): string => keys.map((k) => `${k.x} ${k.dir}`).join(', ');

// ------------------------------------------------------------------ in-memory sort (MongoDB order)

/** MongoDB sorts an empty array below null and missing. */
const EMPTY_ARRAY = Symbol('emptyArray');

function typeRank(v: unknown): number {
  if (v === EMPTY_ARRAY) return 0;
  if (v === null || v === undefined) return 1;
  switch (typeof v) {
    case 'number':
    case 'bigint':
      return 2;
    case 'string':
      return 3;
    case 'boolean':
      return 8;
  }
  if (Array.isArray(v)) return 5;
  if (v instanceof Date) return 9;
  if (v instanceof RegExp) return 11;
  return 4;
}

/** UTF-8 byte order (= code point order), as MongoDB and SQLite's BINARY collation compare strings. */
function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // UTF-16 puts surrogates (code points > U+FFFF) below U+E000..U+FFFF; code point order does not.
    if (x >= 0xd800 && y >= 0xd800) return (x <= 0xdfff ? x + 0x2000 : x - 0x800) - (y <= 0xdfff ? y + 0x2000 : y - 0x800);
    return x - y;
  }
  return a.length - b.length;
}

function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 2:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 3:
      return compareStrings(a as string, b as string);
    case 8:
      return Number(a) - Number(b);
    case 9:
      return (a as Date).getTime() - (b as Date).getTime();
    case 5: {
      const x = a as unknown[];
      const y = b as unknown[];
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        const c = compareValues(x[i], y[i]);
        if (c !== 0) return c;
      }
      return x.length - y.length;
    }
    case 4: {
      // MongoDB: pairwise in field order by value type, then field name, then value.
      const x = Object.entries(a as Doc);
      const y = Object.entries(b as Doc);
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        const c = typeRank(x[i][1]) - typeRank(y[i][1]) || compareStrings(x[i][0], y[i][0]) || compareValues(x[i][1], y[i][1]);
        if (c !== 0) return c;
      }
      return x.length - y.length;
    }
    default:
      return 0;
  }
}

/** The value MongoDB sorts a document by: arrays contribute their smallest (ascending) or largest element. */
function sortKey(doc: Doc, segs: string[], desc: boolean): unknown {
  const values: unknown[] = [];
  let sawEmpty = false;
  const visit = (v: unknown, i: number): void => {
    if (i === segs.length) {
      if (!Array.isArray(v)) values.push(v === undefined ? null : v);
      else if (v.length === 0) sawEmpty = true;
      else values.push(...v);
    } else if (Array.isArray(v)) {
      for (const e of v) if (isPlainObject(e)) visit(e[segs[i]], i + 1);
    } else if (isPlainObject(v)) visit(v[segs[i]], i + 1);
    else values.push(null);
  };
  visit(doc, 0);
  if (values.length === 0) return sawEmpty ? EMPTY_ARRAY : null;
  let best = values[0];
  for (const v of values) {
    const c = compareValues(v, best);
    if (desc ? c > 0 : c < 0) best = v;
  }
  return best;
}

function sortDocs(docs: Doc[], sort: Sort): Doc[] {
  const spec = Object.entries(sort).map(([path, dir]) => ({ segs: path.split('.'), desc: dir === -1 }));
  if (!spec.some((s) => s.segs.length === 1 && s.segs[0] === '_id')) spec.push({ segs: ['_id'], desc: false });
  const keyed = docs.map((doc) => ({ doc, keys: spec.map((s) => sortKey(doc, s.segs, s.desc)) }));
  keyed.sort((a, b) => {
    for (let i = 0; i < spec.length; i++) {
      const c = compareValues(a.keys[i], b.keys[i]);
      if (c !== 0) return spec[i].desc ? -c : c;
    }
    return 0;
  });
  return keyed.map((k) => k.doc);
}
