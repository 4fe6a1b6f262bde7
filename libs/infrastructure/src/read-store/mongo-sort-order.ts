/**
 * MongoDB's sort order, for documents sorted in JavaScript (the SQLite read store's reads whose
 * ORDER BY cannot run in SQL): values compare by type bracket first (empty array < null and missing
 * < numbers < strings < objects < arrays < booleans < dates < regexes), strings by code point, and
 * an array sorts by its smallest (ascending) or largest (descending) element. `_id` breaks ties, as
 * it does in SQL, so both paths return the same order.
 */
import { isPlainObject } from './plain-document';
import type { Doc, Sort } from './read-store.port';

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

export function sortDocs(docs: Doc[], sort: Sort): Doc[] {
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
