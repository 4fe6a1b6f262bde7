/**
 * Keyset pagination. A page token is base64url JSON `{ q, after }`: `q` fingerprints the query it
 * was issued for, `after` holds the sort-key values of the last item returned. The token is not
 * signed: forging `after` only moves the start of a page within what the caller may already list
 * (tenancy and visibility come from the request's own filter), so integrity adds nothing.
 */
import { createHash } from 'node:crypto';
import { DomainError } from '@svc/domain/shared/domain-error';

export interface PageTokenPayload {
  /** Query fingerprint, see queryFingerprint. */
  q: string;
  /** Sort-key values of the last item of the previous page, in sort-key order. */
  after: unknown[];
}

/** What keysetFilter and sortKeyValues need of a sort key (a SortKey from parseOrderBy fits). */
export interface KeysetKey {
  path: string;
  direction: 1 | -1;
}

const INVALID = 'page_token is invalid';
const MISMATCH = 'page_token does not match the request: filter, order_by and show_deleted must not change between pages';
const invalid = (message: string) => new DomainError('INVALID_ARGUMENT', message);

export function encodePageToken(payload: PageTokenPayload): string {
  return Buffer.from(JSON.stringify({ q: payload.q, after: payload.after }), 'utf8').toString('base64url');
}

const isScalar = (v: unknown) => v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

/**
 * Decodes a token issued for the query with this fingerprint. Blank or absent tokens mean the
 * first page and yield null. Only scalar sort values are accepted, so a crafted token cannot smuggle
 * query operators into keysetFilter.
 */
export function decodePageToken(token: string | undefined | null, fingerprint: string): PageTokenPayload | null {
  if (token === undefined || token === null || token === '') return null;
  // Buffer's base64url decoder skips invalid characters; check the alphabet first.
  if (!/^[A-Za-z0-9_-]+$/.test(token)) throw invalid(INVALID);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalid(INVALID);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalid(INVALID);
  const q: unknown = Reflect.get(parsed, 'q');
  const after: unknown = Reflect.get(parsed, 'after');
  if (typeof q !== 'string' || !Array.isArray(after) || after.length === 0 || !after.every(isScalar)) {
    throw invalid(INVALID);
  }
  if (q !== fingerprint) throw invalid(MISMATCH);
  return { q, after };
}

export interface FingerprintInput {
  filter?: string;
  orderBy?: string;
  showDeleted?: boolean;
  /** Other request parameters a token is bound to, e.g. `{ parent }`. */
  extra?: unknown;
}

/**
 * First 16 hex characters of the SHA-256 of the normalised inputs. Filter text is only trimmed
 * (whitespace inside quotes is significant); order_by is reduced to `field dir,field dir` shape
 * with single spaces and a lower-case direction; `extra` is serialised with sorted keys.
 */
export function queryFingerprint(input: FingerprintInput): string {
  const orderBy = (input.orderBy ?? '')
    .split(',')
    .map((item) => item.trim().split(/\s+/).filter(Boolean).map((w, i) => (i === 1 ? w.toLowerCase() : w)).join(' '))
    .filter(Boolean)
    .join(',');
  const normalised = stableStringify([(input.filter ?? '').trim(), orderBy, input.showDeleted === true, input.extra ?? null]);
  return createHash('sha256').update(normalised).digest('hex').slice(0, 16);
}

function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The sort-key values of `doc` (dotted paths; missing values become null) for the next token. */
export function sortKeyValues(doc: Record<string, unknown>, keys: readonly KeysetKey[]): unknown[] {
  return keys.map((k) => {
    let v: unknown = doc;
    for (const seg of k.path.split('.')) {
      v = typeof v === 'object' && v !== null && !Array.isArray(v) ? Reflect.get(v, seg) : undefined;
    }
    return v === undefined ? null : v;
  });
}

/**
 * The MongoDB filter for documents strictly after `after` in the order `keys` describes:
 * `k1 ≻ x1 OR (k1 = x1 AND k2 ≻ x2) OR ...`, where `≻` means "comes after" in the key's direction.
 *
 * Missing and null compare equal and sort before every other value ascending (and so after every
 * other value descending), as in MongoDB. MongoDB's `$gt`/`$lt` never match null, so:
 * - ascending after x: `$gt: x`; after null: `$ne: null` (every non-null value);
 * - descending after x: `$lt: x` or null; after null: nothing (that disjunct is dropped);
 * - equality uses `$eq`, whose null matches missing too.
 * Assumes each key holds one scalar type across documents (MongoDB brackets comparisons by type).
 */
export function keysetFilter(keys: readonly KeysetKey[], after: readonly unknown[]): Record<string, unknown> {
  if (after.length !== keys.length || !after.every(isScalar)) throw invalid(INVALID);
  const disjuncts: Record<string, unknown>[] = [];
  for (let i = 0; i < keys.length; i++) {
    const { path, direction } = keys[i];
    const x = after[i];
    let beyond: Record<string, unknown> | undefined;
    if (direction === 1) beyond = x === null ? { [path]: { $ne: null } } : { [path]: { $gt: x } };
    else if (x !== null) beyond = { $or: [{ [path]: { $lt: x } }, { [path]: { $eq: null } }] };
    if (!beyond) continue;
    const equalPrefix = keys.slice(0, i).map((k, j) => ({ [k.path]: { $eq: after[j] } }));
    disjuncts.push(equalPrefix.length === 0 ? beyond : { $and: [...equalPrefix, beyond] });
  }
  if (disjuncts.length === 0) return { _id: { $in: [] } };
  return disjuncts.length === 1 ? disjuncts[0] : { $or: disjuncts };
}

export interface PageSizeOptions {
  default: number;
  max: number;
}

/**
 * AIP-158 page size: absent, zero or negative → the default; above the cap → the cap. Strings of
 * digits are accepted because query parameters and 64-bit JSON integers arrive as strings.
 */
export function pageSize(
  requested: number | string | undefined | null,
  options: PageSizeOptions = { default: 50, max: 1000 },
): number {
  if (requested === undefined || requested === null || requested === '') return options.default;
  const n = typeof requested === 'string' ? (/^\s*[+-]?\d+\s*$/.test(requested) ? Number(requested) : NaN) : requested;
  if (!Number.isInteger(n)) throw invalid(`page_size must be an integer, got '${String(requested)}'`);
  if (n <= 0) return options.default;
  return Math.min(n, options.max);
}
