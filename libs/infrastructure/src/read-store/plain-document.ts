/** What the embedded adapters' filters, updates and sorts agree a plain document and a plain path are. */
import type { Doc } from './read-store.port';

/** An embedded document: not an array, and not a Date or RegExp, which MongoDB treats as values. */
export function isPlainObject(v: unknown): v is Doc {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date) && !(v instanceof RegExp);
}

/**
 * A dotted path of identifier segments: no array index and nothing to quote, so it can be inlined
 * into a JSON path literal or an index name, and walked through plain objects alone.
 */
export const PLAIN_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
