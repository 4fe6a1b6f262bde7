/**
 * SQL functions the SQLite read store's filter pushdown calls. SQLite's own `instr` and `GLOB` test
 * every start position against the whole needle (time value × needle in the worst case), so a
 * "contains" wildcard runs JavaScript's `includes` (V8's Boyer-Moore search: linear) instead.
 */
import type Database from 'better-sqlite3';
import { matchesLiteral, type LiteralKind } from '../../query/literal-pattern';

/** `svc_contains(haystack, needle)`: 1 when both are text and the haystack contains the needle, else 0. */
export const CONTAINS_FN = 'svc_contains';
/** `svc_match_ci(haystack, kind, needle)`: the case-ignoring prefix/suffix/contains match of `:`. */
export const MATCH_CI_FN = 'svc_match_ci';

export function registerFilterFunctions(db: Database.Database): void {
  db.function(CONTAINS_FN, { deterministic: true }, (haystack: unknown, needle: unknown) =>
    typeof haystack === 'string' && typeof needle === 'string' && haystack.includes(needle) ? 1 : 0,
  );
  db.function(MATCH_CI_FN, { deterministic: true }, (haystack: unknown, kind: unknown, needle: unknown) =>
    typeof needle === 'string' && matchesLiteral({ kind: kind as LiteralKind, text: needle, ignoreCase: true }, haystack) ? 1 : 0,
  );
}
