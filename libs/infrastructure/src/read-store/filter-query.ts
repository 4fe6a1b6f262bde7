/**
 * mingo queries over compiled filters, for the embedded stores (SQLite's re-check, in-memory lists).
 *
 * A `$regex` that is a literal pattern (literal-pattern.ts: what filter wildcards compile to) is
 * evaluated with startsWith / endsWith / includes instead of mingo's `$regex`, which runs a
 * backtracking JavaScript regex on the event loop. The filter document itself stays as MongoDB
 * takes it; only the copy handed to mingo names the linear operator.
 */
import { Context, Query } from 'mingo';
import { ensureArray, flatten, resolve } from 'mingo/util';
import { matchesLiteral, parseLiteralPattern, type LiteralPattern } from '../query/literal-pattern';
import { isPlainObject } from './plain-document';
import type { Filter } from './read-store.port';

type Criteria = ConstructorParameters<typeof Query>[0];
type Operators = Parameters<Context['addQueryOps']>[0];

const LITERAL = '$svcLiteral';

/** mingo's `$regex` with the literal match in place of `RegExp#exec`: any element of an array value may match. */
const operators: Operators = {
  [LITERAL]: (selector: string, value: unknown, _options: unknown) => {
    const pattern = value as LiteralPattern;
    const match = (v: unknown) => matchesLiteral(pattern, v);
    return (doc: Record<string, unknown>) => {
      const values = ensureArray(resolve(doc, selector, { unwrapArray: true }));
      return values.some(match) || flatten(values, 1).some(match);
    };
  },
};
const context = Context.init().addQueryOps(operators);

/** A mingo Query for a filter, matching literal patterns in time linear in the value. */
export function filterQuery(filter: Filter): Query {
  return new Query(withLiteralMatches(filter) as Criteria, { context });
}

const isOperatorObject = (v: unknown): v is Record<string, unknown> => isPlainObject(v) && Object.keys(v).some((k) => k.startsWith('$'));

// Object.fromEntries defines properties: a `__proto__` key can never set the copy's prototype.
function withLiteralMatches(filter: Filter): Filter {
  return Object.fromEntries(
    Object.entries(filter).map(([key, value]) => {
      if ((key === '$and' || key === '$or' || key === '$nor') && Array.isArray(value)) {
        return [key, value.map((f) => (isPlainObject(f) ? withLiteralMatches(f) : f))];
      }
      return [key, key.startsWith('$') ? value : condition(value)];
    }),
  );
}

function condition(value: unknown): unknown {
  if (!isOperatorObject(value)) return value;
  const pattern = '$regex' in value ? parseLiteralPattern(value.$regex, value.$options) : null;
  const entries = Object.entries(value).flatMap(([op, arg]): [string, unknown][] => {
    if (pattern && (op === '$regex' || op === '$options')) return op === '$regex' ? [[LITERAL, pattern]] : [];
    if (op === '$not') return [[op, condition(arg)]];
    if (op === '$elemMatch' && isPlainObject(arg)) return [[op, isOperatorObject(arg) ? condition(arg) : withLiteralMatches(arg)]];
    return [[op, arg]];
  });
  return Object.fromEntries(entries);
}
