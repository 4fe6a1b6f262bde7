/**
 * The SQLite read store's collection reads, on the schema state of the caller's snapshot: a point
 * read by `_id`, find and count, each running as much of the query in SQL as query-sql.ts can
 * translate exactly and the rest with mingo and the MongoDB sort order.
 */
import type Database from 'better-sqlite3';
import { Query } from 'mingo';
import { filterQuery } from '../filter-query';
import { sortDocs } from '../mongo-sort-order';
import type { Doc, DocKey, Filter, FindOptions, Sort } from '../read-store.port';
import { orderBy, orderSql, translateFilter } from './query-sql';
import { parseDoc, STATE_VERSION, type SchemaCache } from './schema-cache';
import type { Statement, StatementCache } from './statements';
import { STALE, type Stale } from './transactions';

type Criteria = ConstructorParameters<typeof Query>[0];

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

export class CollectionReads {
  constructor(
    private readonly db: Database.Database,
    private readonly statements: StatementCache,
    private readonly schema: SchemaCache,
  ) {}

  plan(collection: string, filter: Filter, sort?: Sort): QueryPlan {
    const pointRead = pointId(filter) !== null;
    const coll = this.schema.collection(this.schema.physical(collection));
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
  }

  /**
   * One statement: the document and the schema version of the same snapshot, STALE when that version
   * is not the cached one (the alias or table the cache named may not be the one to read).
   */
  point(name: string, id: string, filter: Filter, projection: FindOptions['projection']): Doc | null | Stale {
    const coll = this.schema.collection(this.schema.physical(name));
    if (!coll) return this.schema.versionNow() === this.schema.version ? null : STALE;
    const stmt = (coll.stmts.byId ??= this.db.prepare(`SELECT ${STATE_VERSION}, (SELECT doc FROM ${coll.table} WHERE _id = ?)`).raw());
    const [version, text] = stmt.get(id) as [number, string | null];
    if (version !== this.schema.version) return STALE;
    if (text === null) return null;
    const doc = parseDoc(text);
    if ('_org' in filter) {
      const want = filter._org;
      // The common case compares two strings; anything else (an array `_org`, an operator) is MongoDB's business.
      const match = typeof want === 'string' && typeof doc._org === 'string' ? want === doc._org : new Query({ _org: want } as Criteria, {}).test(doc);
      if (!match) return null;
    }
    return projection ? project([doc], projection)[0] : doc;
  }

  /** Documents by `_id` from any collections, in one statement like `point` (STALE likewise). */
  points(keys: readonly DocKey[]): Array<Doc | null> | Stale {
    const tables = keys.map((k) => this.schema.collection(this.schema.physical(k.collection))?.table);
    const present = tables.filter((t): t is string => t !== undefined);
    const lookups = present.map((table) => `, (SELECT doc FROM ${table} WHERE _id = ?)`).join('');
    const row = this.statements.raw(`SELECT ${STATE_VERSION}${lookups}`).get(...keys.filter((_, i) => tables[i] !== undefined).map((k) => k.id)) as unknown[];
    if (row[0] !== this.schema.version) return STALE;
    let column = 1;
    return tables.map((table) => {
      if (table === undefined) return null;
      const text = row[column++] as string | null;
      return text === null ? null : parseDoc(text);
    });
  }

  find(name: string, filter: Filter, options: FindOptions): Doc[] {
    const coll = this.schema.collection(this.schema.physical(name));
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

  count(name: string, filter: Filter): number {
    const coll = this.schema.collection(this.schema.physical(name));
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

  private stmt(sql: string, pluck = false): Statement {
    return this.statements.get(sql, pluck);
  }
}

/** The `_id` of a filter that is exactly `{ _id: <string> }`, optionally with `_org`; else null. */
export function pointId(filter: Filter): string | null {
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

function project(docs: Doc[], projection: Record<string, 0 | 1>): Doc[] {
  return new Query({}, {}).find<Doc>(docs, projection as Record<string, 0 | 1>).all();
}
