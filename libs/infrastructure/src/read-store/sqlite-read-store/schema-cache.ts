/**
 * The SQLite read store's schema: one table per physical collection holding documents as JSON,
 * aliases naming the physical collection that serves a logical one, and the paths a projection
 * declared (ensureIndexes), each materialized into a column of its own (written with the document,
 * indexed on `(_org, column)`): json_extract at query time costs a JSON parse per candidate row,
 * which dominated query time. The column holds what json_extract would return for scalars.
 *
 * A column mirrors MongoDB only for scalar values, so every declared path carries flags (below),
 * maintained on every write and read in the same snapshot as the query.
 *
 * This state is cached per connection with the `_rs_state` version it was loaded at; every schema
 * change bumps that version. A read checks it in its own snapshot (transactions.ts) and reloads the
 * cache only when it moved, so other connections' data commits cost nothing.
 */
import type Database from 'better-sqlite3';
import { PLAIN_PATH } from '../plain-document';
import type { Doc, ListIndexes } from '../read-store.port';
import type { Statement, StatementCache } from './statements';

/** An array somewhere on the path, or an object/array value: json_extract cannot mirror MongoDB there. */
export const UNSAFE = 1;
/** A boolean value: json_extract yields 1/0, which compares and sorts as a number. */
export const BOOL = 2;
/** An explicit null: the column holds NULL for null and missing alike, so `$exists` must look at the JSON. */
export const NULLV = 4;
/** Declared, not seen on a document: looked up across organizations, so its index leads with the column, then `_org`. */
export const CROSS_ORG = 8;

export interface PathState {
  flags: number;
  segs: string[];
  /** Quoted name of the materialized column. */
  column: string;
}

export interface CollectionState {
  table: string;
  /** Flags of `_org`: UNSAFE once a document held a non-string `_org` (the column then is not the field). */
  orgFlags: number;
  paths: Map<string, PathState>;
  /** How its Lists read (ensureIndexes' `list`): the indexes of `paths` continue with `order`. */
  list: ListIndexes;
  /** Statements over this table for its current columns, prepared once (SQL built per row cost as much as the write). */
  stmts: CollectionStatements;
}

export interface CollectionStatements {
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

/** What the schema asks of the bulk loads and the planner statistics. */
export interface SchemaHooks {
  /** A bulk load builds this collection's indexes once its rows are in. */
  indexesDeferred(physical: string): boolean;
  /** The collection's table was dropped. */
  dropped(physical: string): void;
}

/** A scalar subquery: the schema version, readable in the same statement as a query (one snapshot). */
export const STATE_VERSION = '(SELECT v FROM _rs_state WHERE k = 1)';

export const quote = (ident: string): string => `"${ident.replace(/"/g, '""')}"`;

/** The name of a collection's `(_org, _id)` index (SchemaCache.indexDefinitions says when it exists). */
const orgIndexName = (physical: string): string => `ix:${physical}#org`;

export function tableName(physical: string): string {
  return quote(`c_${physical}`);
}

export function parseDoc(text: string): Doc {
  return JSON.parse(text) as Doc;
}

/** The tables that hold the schema state. */
export function createSchemaTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS _rs_state (k INTEGER PRIMARY KEY, v INTEGER NOT NULL);
    INSERT OR IGNORE INTO _rs_state (k, v) VALUES (1, 0);
    CREATE TABLE IF NOT EXISTS _rs_aliases (logical TEXT PRIMARY KEY, physical TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS _rs_collections (name TEXT PRIMARY KEY, org_flags INTEGER NOT NULL DEFAULT 0, list_order TEXT NOT NULL DEFAULT '');
    CREATE TABLE IF NOT EXISTS _rs_paths (coll TEXT NOT NULL, path TEXT NOT NULL, flags INTEGER NOT NULL, PRIMARY KEY (coll, path));
  `);
  // Read stores written before list orders were kept (the caller holds a write transaction).
  const columns = db.prepare(`SELECT name FROM pragma_table_info('_rs_collections')`).pluck().all() as string[];
  if (!columns.includes('list_order')) db.exec(`ALTER TABLE _rs_collections ADD COLUMN list_order TEXT NOT NULL DEFAULT ''`);
}

const NO_LIST: ListIndexes = { order: [], paths: [] };

/** `createTime:-1,name:1|toolName,displayName`, as `_rs_collections.list_order` keeps it (paths hold no `,`, `:` or `|`). */
export function encodeListIndexes(list: ListIndexes): string {
  return list.order.length === 0 ? '' : `${list.order.map((k) => `${k.path}:${k.direction}`).join(',')}|${list.paths.join(',')}`;
}

function decodeListIndexes(text: string): ListIndexes {
  if (text === '') return NO_LIST;
  const [order, paths = ''] = text.split('|');
  return {
    order: order.split(',').map((item) => {
      const at = item.lastIndexOf(':');
      return { path: item.slice(0, at), direction: item.slice(at + 1) === '-1' ? -1 : 1 };
    }),
    paths: paths === '' ? [] : paths.split(','),
  };
}

/** Paths that can be materialized; others (array indexes, odd characters) simply stay in mingo. */
export function isDeclarablePath(path: string): boolean {
  return path !== '_id' && path !== '_org' && PLAIN_PATH.test(path);
}

export class SchemaCache {
  private state: State = { version: -1, aliases: new Map(), collections: new Map() };
  private readonly stateVersion: Statement;
  /** Reloads of the cached state since the store was opened. */
  loads = 0;

  /** Needs the schema tables (createSchemaTables). */
  constructor(
    private readonly db: Database.Database,
    private readonly statements: StatementCache,
    private readonly hooks: SchemaHooks,
  ) {
    // The internal tables are never dropped, so this statement lives as long as the connection.
    this.stateVersion = db.prepare(`SELECT ${STATE_VERSION}`).pluck();
  }

  /** The version the cached state was loaded at (own schema changes keep it current); -1 before the first load. */
  get version(): number {
    return this.state.version;
  }

  /** The schema version in the database now (in the caller's snapshot, inside a transaction). */
  versionNow(): number {
    return this.stateVersion.get() as number;
  }

  /** After a rollback, which may have undone schema changes already applied to the cache. */
  invalidate(): void {
    this.state.version = -1;
  }

  /** Reloads the cached schema state when any process changed it. Runs inside the caller's snapshot. */
  refresh(): void {
    const version = this.versionNow();
    if (version === this.state.version) return;
    const aliases = new Map<string, string>();
    for (const r of this.stmt('SELECT logical, physical FROM _rs_aliases').all() as { logical: string; physical: string }[]) {
      aliases.set(r.logical, r.physical);
    }
    const collections = new Map<string, CollectionState>();
    const rows = this.stmt('SELECT name, org_flags AS orgFlags, list_order AS listOrder FROM _rs_collections').all() as { name: string; orgFlags: number; listOrder: string }[];
    for (const r of rows) {
      collections.set(r.name, { table: tableName(r.name), orgFlags: r.orgFlags, paths: new Map(), list: decodeListIndexes(r.listOrder), stmts: {} });
    }
    for (const r of this.stmt('SELECT coll, path, flags FROM _rs_paths').all() as { coll: string; path: string; flags: number }[]) {
      collections.get(r.coll)?.paths.set(r.path, pathState(r.path, r.flags));
    }
    this.statements.clear(); // statements may reference tables another process dropped
    this.state = { version, aliases, collections };
    this.loads++;
  }

  bump(): void {
    this.state.version = this.stmt('UPDATE _rs_state SET v = v + 1 WHERE k = 1 RETURNING v', true).get() as number;
  }

  /** The physical collection serving a logical name. */
  physical(name: string): string {
    return this.state.aliases.get(name) ?? name;
  }

  collection(physical: string): CollectionState | undefined {
    return this.state.collections.get(physical);
  }

  /** Whether the collection is an alias's name or serves under one. */
  isAliased(physical: string): boolean {
    return this.state.aliases.has(physical) || [...this.state.aliases.values()].includes(physical);
  }

  /** Points a logical name at a physical collection (its own name: no alias). The caller bumps. */
  setAlias(logical: string, physical: string): void {
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
  }

  /** The physical collections some alias serves. */
  aliasTargets(): Set<string> {
    return new Set([...this.state.aliases.values()]);
  }

  ensureTable(physical: string): CollectionState {
    const found = this.state.collections.get(physical);
    if (found) return found;
    if (physical === '') throw new Error('collection name must not be empty');
    const table = tableName(physical);
    this.db.exec(`CREATE TABLE IF NOT EXISTS ${table} (_id TEXT PRIMARY KEY, _org TEXT, _pos INTEGER, doc TEXT NOT NULL)`);
    const coll: CollectionState = { table, orgFlags: 0, paths: new Map(), list: NO_LIST, stmts: {} };
    if (!this.hooks.indexesDeferred(physical)) this.createIndexes(physical, coll);
    this.stmt('INSERT OR IGNORE INTO _rs_collections (name, org_flags) VALUES (?, 0)').run(physical);
    this.state.collections.set(physical, coll);
    this.bump();
    return coll;
  }

  /**
   * The secondary indexes: one per declared path (pathIndex), and `(_org, _id)` while no path index
   * leads with `_org`. Once one does, it serves every scan of one organization as well, and the
   * `(_org, _id)` index was one more B-tree for each write to update at a random page (measured: 12%
   * of the projector's time per note, docs/performance.md); an order by `_id` alone within an
   * organization, which no List asks for, then sorts.
   */
  indexDefinitions(physical: string, coll: CollectionState): string[] {
    const paths = [...coll.paths.keys()].map((path) => this.pathIndex(physical, coll, path));
    return this.orgLed(coll) ? paths : [this.orgIndex(physical, coll), ...paths];
  }

  private orgIndex(physical: string, coll: CollectionState): string {
    return `CREATE INDEX IF NOT EXISTS ${quote(orgIndexName(physical))} ON ${coll.table} (_org, _id)`;
  }

  /** Whether some path index leads with `_org` (a path not looked up across organizations). */
  private orgLed(coll: CollectionState): boolean {
    for (const p of coll.paths.values()) if (!(p.flags & CROSS_ORG)) return true;
    return false;
  }

  /** Whether the `(_org, _id)` index exists exactly when indexDefinitions has it (a store made before that rule may differ). */
  orgIndexInSync(physical: string, coll: CollectionState): boolean {
    const exists = this.stmt(`SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?`, true).get(orgIndexName(physical)) !== undefined;
    return exists !== this.orgLed(coll);
  }

  /** After the path indexes changed: the `(_org, _id)` index exists exactly when indexDefinitions has it. */
  syncOrgIndex(physical: string, coll: CollectionState): void {
    this.db.exec(this.orgLed(coll) ? `DROP INDEX IF EXISTS ${quote(orgIndexName(physical))}` : this.orgIndex(physical, coll));
  }

  /**
   * `(_org, column)`, and for a List's equality path `(_org, column, ...list order)` (each key in its
   * direction): a List filtering on it needs no sort and reads its keys, and the soft-delete
   * check, from the index alone.
   */
  private pathIndex(physical: string, coll: CollectionState, path: string): string {
    const column = (key: string): string | undefined => (key === '_id' ? '_id' : coll.paths.get(key)?.column);
    const order = coll.list.paths.includes(path) ? coll.list.order : [];
    const rest = order.filter((k) => k.path !== path && column(k.path) !== undefined).map((k) => `${column(k.path)}${k.direction === -1 ? ' DESC' : ''}`);
    const lead = (coll.paths.get(path)?.flags ?? 0) & CROSS_ORG ? [column(path), '_org'] : ['_org', column(path)];
    return `CREATE INDEX IF NOT EXISTS ${quote(`ix:${physical}:${path}`)} ON ${coll.table} (${[...lead, ...rest].join(', ')})`;
  }

  /** A declared path is from now on looked up across organizations too: its index leads with it. */
  markCrossOrg(physical: string, coll: CollectionState, path: string): void {
    const p = coll.paths.get(path);
    if (!p || p.flags & CROSS_ORG) return;
    p.flags |= CROSS_ORG;
    this.stmt('UPDATE _rs_paths SET flags = ? WHERE coll = ? AND path = ?').run(p.flags, physical, path);
    if (!this.hooks.indexesDeferred(physical)) {
      this.db.exec(`DROP INDEX IF EXISTS ${quote(`ix:${physical}:${path}`)}`);
      this.db.exec(this.pathIndex(physical, coll, path));
      this.syncOrgIndex(physical, coll);
    }
    this.bump();
  }

  /** Sets how the collection's Lists read, rebuilding the path indexes (unless deferred by a bulk load). */
  setListIndexes(physical: string, coll: CollectionState, list: ListIndexes): void {
    coll.list = list;
    this.stmt('UPDATE _rs_collections SET list_order = ? WHERE name = ?').run(encodeListIndexes(list), physical);
    if (!this.hooks.indexesDeferred(physical)) {
      for (const path of coll.paths.keys()) {
        this.db.exec(`DROP INDEX IF EXISTS ${quote(`ix:${physical}:${path}`)}`);
        this.db.exec(this.pathIndex(physical, coll, path));
      }
    }
    this.bump();
  }

  createIndexes(physical: string, coll: CollectionState): void {
    for (const sql of this.indexDefinitions(physical, coll)) this.db.exec(sql);
    this.syncOrgIndex(physical, coll);
  }

  declarePath(physical: string, coll: CollectionState, path: string, crossOrg = false): void {
    const state = pathState(path, 0);
    // Existing documents decide the flags once; from then on every write maintains them.
    for (const text of this.stmt(`SELECT doc FROM ${coll.table}`, true).iterate()) {
      state.flags |= inspectPath(parseDoc(text as string), state.segs).flags;
      if (state.flags === (UNSAFE | BOOL | NULLV)) break;
    }
    if (crossOrg) state.flags |= CROSS_ORG;
    const columns = this.db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(`c_${physical}`) as string[];
    if (!columns.includes(`p:${path}`)) this.db.exec(`ALTER TABLE ${coll.table} ADD COLUMN ${state.column}`);
    // For scalars json_extract returns exactly what inspectPath writes (booleans as 1/0, null as NULL).
    this.db.exec(`UPDATE ${coll.table} SET ${state.column} = json_extract(doc, '$.${path}')`);
    this.stmt('INSERT OR REPLACE INTO _rs_paths (coll, path, flags) VALUES (?, ?, ?)').run(physical, path, state.flags);
    coll.paths.set(path, state);
    // A bulk load builds its indexes once its rows are in (endBulk).
    if (!this.hooks.indexesDeferred(physical)) {
      this.db.exec(this.pathIndex(physical, coll, path));
      this.syncOrgIndex(physical, coll);
    }
    coll.stmts = {}; // the write statements list the columns
    this.bump();
  }

  dropTable(physical: string): void {
    this.db.exec(`DROP TABLE IF EXISTS ${tableName(physical)}`);
    this.stmt('DELETE FROM _rs_collections WHERE name = ?').run(physical);
    this.stmt('DELETE FROM _rs_paths WHERE coll = ?').run(physical);
    this.state.collections.delete(physical);
    this.statements.clear();
    this.hooks.dropped(physical);
    this.bump();
  }

  /** A document held a non-string `_org`: from now on `_org` stays out of SQL. */
  markOrgUnsafe(physical: string, coll: CollectionState): void {
    coll.orgFlags |= UNSAFE;
    this.stmt('UPDATE _rs_collections SET org_flags = ? WHERE name = ?').run(coll.orgFlags, physical);
    this.bump();
  }

  /** A document revealed new flags at a declared path. */
  widenFlags(physical: string, path: string, p: PathState, flags: number): void {
    p.flags |= flags;
    this.stmt('UPDATE _rs_paths SET flags = ? WHERE coll = ? AND path = ?').run(p.flags, physical, path);
    this.bump();
  }

  private stmt(sql: string, pluck = false): Statement {
    return this.statements.get(sql, pluck);
  }
}

function pathState(path: string, flags: number): PathState {
  return { flags, segs: path.split('.'), column: quote(`p:${path}`) };
}

/** A document's flags at a path (see the flag constants) and its column value: what json_extract would return for a scalar. */
export function inspectPath(doc: Doc, segs: string[]): { flags: number; value: string | number | null } {
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
