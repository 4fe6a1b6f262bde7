/**
 * A MongoDB filter and sort as SQL over a collection's columns (`_id`, `_org`, the materialized
 * paths of schema-cache.ts), for the SQLite read store's reads.
 *
 * Pushdown rule: the WHERE is either exact (same answer as MongoDB) or a superset of the answer,
 * in which case mingo re-checks every candidate against the whole filter. A path that ever held an
 * array (anywhere along it) or an object is never pushed down; a path that held a boolean gets type
 * guards and no SQL ordering.
 */
import { parseLiteralPattern, type LiteralPattern } from '../../query/literal-pattern';
import { isPlainObject } from '../plain-document';
import type { Filter, Sort } from '../read-store.port';
import { CONTAINS_FN, MATCH_CI_FN } from './filter-functions';
import { BOOL, NULLV, UNSAFE, type CollectionState } from './schema-cache';

/** A WHERE fragment; `sql: null` means no constraint. `exact: false` means a superset of the answer. */
export interface Sql {
  sql: string | null;
  params: unknown[];
  exact: boolean;
}

const TRUE_INEXACT: Sql = { sql: null, params: [], exact: false };
const FALSE_EXACT: Sql = { sql: '0', params: [], exact: true };

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
export function translateFilter(filter: Filter, coll: CollectionState): Sql {
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
export function orderBy(sort: Sort | undefined, coll: CollectionState): OrderKey[] | null {
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

export interface OrderKey {
  x: string;
  dir: 'ASC' | 'DESC';
}

export const orderSql = (keys: OrderKey[]): string => keys.map((k) => `${k.x} ${k.dir}`).join(', ');
