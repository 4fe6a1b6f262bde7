/**
 * SQLite read store: one table per physical collection holding documents as JSON, with MongoDB
 * semantics from mingo, and SQL pushdown for the fields a projection declares (ensureIndexes).
 * This class maps the port onto its parts:
 * - schema-cache.ts: tables, aliases, declared paths and their flags, cached per connection;
 * - transactions.ts: read and write transactions on that cache, and reads that need none;
 * - collection-reads.ts with query-sql.ts: find, count and point reads, as much as possible in SQL;
 * - document-rows.ts with ../document-update.ts: documents written as rows with their columns;
 * - bulk-load.ts and planner-statistics.ts: rebuilds' deferred indexes, and ANALYZE off the commit path;
 * - bookkeeping.ts: checkpoints, parked events and meta values.
 */
import { WalCheckpointer } from '../../sqlite/wal-checkpointer';
import { CommitMarker } from '../../sqlite/commit-watch';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { openSqlite } from '../../sqlite/driver';
import { enableWal } from '../../sqlite/wal';
import type { Position } from '../../event-store/event-store.port';
import { applyUpdate } from '../document-update';
import type {
  CheckpointRecord,
  Doc,
  DocKey,
  Filter,
  ListIndexes,
  ParkedEvent,
  ProjectionBatch,
  ReadCollection,
  ReadStore,
  Sort,
  WriteOp,
} from '../read-store.port';
import { Bookkeeping, createBookkeepingTables } from './bookkeeping';
import { BulkLoads } from './bulk-load';
import { CollectionReads, pointId, type QueryPlan } from './collection-reads';
import { DocumentRows } from './document-rows';
import { registerFilterFunctions } from './filter-functions';
import { PlannerStatistics } from './planner-statistics';
import { createSchemaTables, CROSS_ORG, encodeListIndexes, isDeclarablePath, parseDoc, SchemaCache } from './schema-cache';
import { StatementCache } from './statements';
import { Transactions } from './transactions';

export type { QueryPlan } from './collection-reads';

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
  /**
   * Run WAL checkpoints on a worker thread (the event store's WalCheckpointer) instead of inside the
   * commit that fills the WAL, which is a projector's commit that commands wait for. Default true.
   */
  backgroundCheckpoints?: boolean;
}

/** Write transactions between two background checkpoints: a live page's commit writes a few dozen to a few hundred pages. */
const COMMITS_PER_CHECKPOINT = 8;

export class SqliteReadStore implements ReadStore {
  private readonly db: Database.Database;
  private readonly statements: StatementCache;
  private readonly schema: SchemaCache;
  private readonly tx: Transactions;
  private readonly reads: CollectionReads;
  private readonly rows: DocumentRows;
  private readonly statistics: PlannerStatistics;
  private readonly bulk: BulkLoads;
  private readonly bookkeeping: Bookkeeping;

  /** The database file (':memory:' for a private in-memory store). */
  readonly file: string;
  /** Touched after each write transaction: other processes' read-your-writes waiters wake on it. */
  private readonly marker: CommitMarker;
  private readonly checkpointer: WalCheckpointer | undefined;
  /** Set while the checkpointer holds writes so that the WAL can restart: commits wait for it (see WalCheckpointer). */
  private held: { resumed: Promise<void>; resume: () => void } | null = null;

  constructor(options: SqliteReadStoreOptions) {
    this.file = options.file;
    this.marker = new CommitMarker(options.file);
    if (options.file !== ':memory:') mkdirSync(dirname(options.file), { recursive: true });
    this.db = openSqlite(options.file);
    registerFilterFunctions(this.db);
    this.db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    enableWal(this.db, options.busyTimeoutMs ?? 5000);
    this.db.pragma('synchronous = NORMAL');
    if (options.file !== ':memory:' && (options.backgroundCheckpoints ?? true)) {
      this.checkpointer = new WalCheckpointer(
        resolve(options.file),
        options.busyTimeoutMs ?? 5000,
        {
          holdWrites: () => {
            if (this.held) return;
            let resume = (): void => undefined;
            const resumed = new Promise<void>((r) => (resume = r));
            this.held = { resumed, resume };
          },
          resumeWrites: () => {
            const held = this.held;
            this.held = null;
            held?.resume();
          },
          // Without its checkpointer the WAL would grow without bound: back to checkpoints in the commit.
          fallBack: () => {
            if (this.db.open) this.db.pragma('wal_autocheckpoint = 1000');
          },
        },
        COMMITS_PER_CHECKPOINT,
      );
      this.db.pragma('wal_autocheckpoint = 0');
    }
    this.db
      .transaction(() => {
        createSchemaTables(this.db);
        createBookkeepingTables(this.db);
      })
      .immediate();
    this.statements = new StatementCache(this.db);
    this.schema = new SchemaCache(this.db, this.statements, {
      indexesDeferred: (physical) => this.bulk.has(physical),
      dropped: (physical) => {
        this.bulk.forget(physical);
        this.statistics.forget(physical);
      },
    });
    this.tx = new Transactions(this.db, this.schema, () => {
      this.marker.signal();
      this.checkpointer?.written(1);
    });
    this.reads = new CollectionReads(this.db, this.statements, this.schema);
    this.rows = new DocumentRows(this.db, this.schema);
    const loading = (physical: string): boolean => this.bulk.has(physical);
    this.statistics = new PlannerStatistics(this.db, this.statements, this.tx, this.schema, loading, options.analyzeIntervalMs ?? 60_000);
    this.bulk = new BulkLoads(this.db, this.tx, this.schema, this.statistics);
    this.bookkeeping = new Bookkeeping(this.db, this.statements);
  }

  // ---------------------------------------------------------------- port: reads

  collection(name: string): ReadCollection {
    return {
      find: async (filter, options) => {
        const id = pointId(filter);
        if (id !== null) {
          const doc = this.tx.readPoint(() => this.reads.point(name, id, filter, options?.projection));
          return doc === null ? [] : [doc];
        }
        return this.tx.readQuery(() => this.reads.find(name, filter, options ?? {}));
      },
      findOne: async (filter, options) => {
        const id = pointId(filter);
        if (id !== null) return this.tx.readPoint(() => this.reads.point(name, id, filter, options?.projection));
        return this.tx.readQuery(() => this.reads.find(name, filter, { ...options, limit: 1 })[0] ?? null);
      },
      countDocuments: async (filter) => this.tx.readQuery(() => this.reads.count(name, filter)),
    };
  }

  async findByIds(keys: readonly DocKey[]): Promise<Array<Doc | null>> {
    return keys.length === 0 ? [] : this.tx.readPoint(() => this.reads.points(keys));
  }

  /** Diagnostics and tests: how a query would run. */
  explain(collection: string, filter: Filter, sort?: Sort): QueryPlan {
    return this.tx.read(() => this.reads.plan(collection, filter, sort));
  }

  /** Diagnostics and tests: how reads ran so far (copies the counters). */
  stats(): ReadStats {
    return { direct: this.tx.direct, transactional: this.tx.transactional, stateLoads: this.schema.loads };
  }

  // ---------------------------------------------------------------- port: writes

  async ensureIndexes(collection: string, paths: string[], list?: ListIndexes, crossOrg: readonly string[] = []): Promise<void> {
    // The list order's paths are declared first, so the path indexes made next already continue with them.
    const listed: ListIndexes | undefined = list && {
      order: list.order.filter((k) => k.path === '_id' || isDeclarablePath(k.path)),
      paths: list.paths.filter(isDeclarablePath),
    };
    const across = new Set(crossOrg.filter(isDeclarablePath));
    const wanted = [...new Set([...(listed?.order ?? []).map((k) => k.path).filter((p) => p !== '_id'), ...(listed?.paths ?? []), ...paths, ...across])].filter(isDeclarablePath);
    const listText = listed && encodeListIndexes(listed);
    let physical = this.schema.physical(collection);
    const done = this.tx.read(() => {
      physical = this.schema.physical(collection);
      const coll = this.schema.collection(physical);
      return (
        coll !== undefined &&
        wanted.every((p) => coll.paths.has(p)) &&
        [...across].every((p) => ((coll.paths.get(p)?.flags ?? 0) & CROSS_ORG) !== 0) &&
        (listed === undefined || encodeListIndexes(coll.list) === listText) &&
        (this.bulk.has(physical) || this.schema.orgIndexInSync(physical, coll))
      );
    });
    if (!done) {
      this.tx.write(() => {
        physical = this.schema.physical(collection);
        const coll = this.schema.ensureTable(physical);
        for (const path of wanted) if (!coll.paths.has(path)) this.schema.declarePath(physical, coll, path, across.has(path));
        for (const path of across) this.schema.markCrossOrg(physical, coll, path);
        if (listed !== undefined && encodeListIndexes(coll.list) !== listText) this.schema.setListIndexes(physical, coll, listed);
        if (!this.bulk.has(physical)) this.schema.syncOrgIndex(physical, coll);
      });
    }
    // New indexes over existing rows need statistics now, and so does a collection that has rows
    // but no (or outgrown) statistics: this runs when a projection starts, a sensible moment.
    // A bulk load takes its statistics in endBulk, once the rows are in.
    if (!this.bulk.has(physical)) this.statistics.analyzeIfDue(physical, !done, false);
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
    // A hold lasts one checkpoint of the WAL's tail (at most 200 ms); other writes are rare and may pass.
    while (this.held) await this.held.resumed;
    const grown = new Set<string>();
    this.tx.write(() => {
      for (const batch of batches) for (const op of batch.ops) this.applyOp(op, grown);
      this.bookkeeping.advance(batches);
    });
    this.statistics.committed(grown);
  }

  async beginBulk(physical: string): Promise<void> {
    this.bulk.begin(physical);
  }

  async endBulk(physical: string): Promise<void> {
    await this.bulk.end(physical);
  }

  /** One operation inside commitMany's transaction; `grown` collects the collections that gained rows outside a bulk load. */
  private applyOp(op: WriteOp, grown: Set<string>): void {
    const physical = this.schema.physical(op.collection);
    if (op.op === 'delete') {
      const coll = this.schema.collection(physical);
      if (coll) this.rows.remove(coll, op.id);
      return;
    }
    const bulk = this.bulk.get(physical);
    if (!bulk) grown.add(physical);
    if (op.op === 'insert') {
      const id = op.doc._id;
      if (this.rows.writeDoc(physical, this.schema.ensureTable(physical), id, op.doc, 'insertIfAbsent')) bulk?.written?.add(id);
      return;
    }
    const existing = this.schema.collection(physical);
    const absent = existing === undefined || (bulk?.written != null && !bulk.written.has(op.id));
    // The stored row as [doc, _pos, _org, ...columns], so a replace can tell which columns changed.
    const row = absent ? undefined : (this.rows.current(existing).get(op.id) as unknown[] | undefined);
    if (row && typeof row[1] === 'number' && row[1] >= op.pos) return; // already past this event
    if (!row && !op.upsert) return;
    const coll = existing ?? this.schema.ensureTable(physical);
    const doc: Doc = row ? parseDoc(row[0] as string) : { _id: op.id };
    applyUpdate(doc, op.update, !row);
    doc._pos = op.pos;
    if (doc._id !== op.id) throw new Error(`update of ${op.collection}/${op.id} would modify the immutable field '_id'`);
    if (row) {
      this.rows.writeDoc(physical, coll, op.id, doc, 'replace', row);
    } else {
      this.rows.writeDoc(physical, coll, op.id, doc, 'insert');
      bulk?.written?.add(op.id);
    }
  }

  async swapCollections(aliases: Record<string, string>, checkpoint: { name: string; position: Position }): Promise<void> {
    const analyzed = this.tx.write(() => {
      const previous: string[] = [];
      const stats = new Map<string, number>();
      for (const [logical, physical] of Object.entries(aliases)) {
        const before = this.schema.physical(logical);
        const target = this.schema.ensureTable(physical); // an empty rebuild still replaces the old data
        // Carry the declarations over, so a rebuild that forgot ensureIndexes keeps its pushdown.
        const old = this.schema.collection(before);
        if (old) for (const [path, p] of old.paths) if (!target.paths.has(path)) this.schema.declarePath(physical, target, path, (p.flags & CROSS_ORG) !== 0);
        // A bulk load still open (endBulk forgotten) gets its indexes and statistics before it goes
        // live; a collection loaded without one gets statistics when it has outgrown its last ones.
        const rows = this.bulk.has(physical) ? this.bulk.finish(physical) : this.statistics.analyzeIfOutgrown(physical, target);
        if (rows !== null) stats.set(physical, rows);
        this.schema.setAlias(logical, physical);
        if (before !== physical) previous.push(before);
      }
      this.bookkeeping.setCheckpoint(checkpoint.name, checkpoint.position);
      const live = this.schema.aliasTargets();
      for (const name of previous) if (!live.has(name)) this.schema.dropTable(name);
      this.schema.bump();
      return stats;
    });
    for (const physical of Object.values(aliases)) this.bulk.forget(physical);
    for (const [physical, rows] of analyzed) this.statistics.record(physical, rows);
  }

  async dropCollection(physical: string): Promise<void> {
    this.tx.write(() => this.schema.dropTable(physical));
  }

  // ---------------------------------------------------------------- port: checkpoints, parking, meta

  async getCheckpoint(name: string): Promise<Position | null> {
    return this.bookkeeping.getCheckpoint(name);
  }

  async listCheckpoints(): Promise<CheckpointRecord[]> {
    return this.bookkeeping.listCheckpoints();
  }

  async deleteCheckpoint(name: string): Promise<void> {
    this.bookkeeping.deleteCheckpoint(name);
  }

  async park(event: ParkedEvent): Promise<void> {
    this.bookkeeping.park(event);
  }

  async unpark(projection: string, eventId: string): Promise<void> {
    this.bookkeeping.unpark(projection, eventId);
  }

  async listParked(projection?: string): Promise<ParkedEvent[]> {
    return this.bookkeeping.listParked(projection);
  }

  async putMeta(key: string, value: unknown): Promise<void> {
    this.bookkeeping.putMeta(key, value);
  }

  async getMeta<T = unknown>(key: string): Promise<T | null> {
    return this.bookkeeping.getMeta<T>(key);
  }

  async close(): Promise<void> {
    this.statistics.stop();
    await this.checkpointer?.close();
    this.marker.close();
    if (!this.db.open) return;
    this.statements.clear();
    this.db.close();
  }
}
