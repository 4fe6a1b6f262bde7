/**
 * AIP-160 filters: the compiler that checks a parsed filter (filter-syntax.ts) against a resource's
 * filterable fields and emits a MongoDB query document, which MongoDB runs as it is and the
 * embedded stores run through SQL pushdown and mingo (read-store/filter-query.ts).
 *
 * Semantics (https://google.aip.dev/160, and docs/decisions.md where it leaves room):
 * - Wildcards: on `=`, `!=` and `:` over strings (string fields, map values, string[] elements with
 *   `:`), a leading `*` means "ends with", a trailing one "starts with", both "contains"; a `*`
 *   anywhere else, or written `\*`, is a literal star. On `=` and `!=` matches are as
 *   case-sensitive as `=`; `:` (the spec's "filterable by substring") ignores case.
 *   They compile to literal `$regex` shapes (literal-pattern.ts) that every store runs in linear time.
 * - Presence: `field:*` holds when the field has a non-default value: a non-empty string (enum,
 *   timestamp), a non-zero number, `true`, a non-empty list or map. `NOT field:*` is the complement.
 *   `map:key` tests that the map has the key.
 * - Map values are strings: `labels.a.b` traverses through a string and is refused, as is a
 *   sub-field of any declared scalar. `__proto__` is never a path segment.
 * - Values may be quoted or bare for every type; the field type decides how the text is read.
 * - A parenthesised argument (`status = (A OR B)`) distributes the comparison over its values.
 */
import { literalCondition, type LiteralPattern } from './literal-pattern';
import { parseFilter, shown, syntaxError, type Comparator, type FilterAst, type FilterMember } from './filter-syntax';

export {
  FILTER_LIMITS,
  parseFilter,
  type Comparator,
  type FilterArg,
  type FilterAst,
  type FilterMember,
  type FilterText,
} from './filter-syntax';

export type FieldType = 'string' | 'number' | 'boolean' | 'timestamp' | 'enum' | 'map' | 'string[]';

export interface FilterField {
  type: FieldType;
  /** Document path, lowerCamelCase (e.g. `toolName`). */
  path: string;
  /** Allowed values of an enum field. */
  values?: readonly string[];
}

/** Keys are snake_case field names as written in filters (e.g. `tool_name`). */
export type FilterSchema = Record<string, FilterField>;

// ---------------------------------------------------------------------------------------------
// Compiler

type Query = Record<string, unknown>;

interface Literal {
  text: string;
  quoted: boolean;
  column: number;
  literalStars: ReadonlySet<number>;
}

/** Joins an argument member (`1.5`, `v1.2.3`, `'a'.b`) back into one literal. */
function literalOf(member: FilterMember): Literal {
  let text = '';
  const stars = new Set<number>();
  member.segments.forEach((s, i) => {
    if (i > 0) text += '.';
    for (const idx of s.literalStars ?? []) stars.add(text.length + idx);
    text += s.text;
  });
  const quoted = member.segments.length === 1 && member.segments[0].quoted;
  return { text, quoted, column: member.column, literalStars: stars };
}

const snakeSegmentToCamel = (s: string) => s.replace(/(?<=[A-Za-z0-9])_+([A-Za-z0-9])/g, (_m, c: string) => c.toUpperCase());

interface ResolvedSchema {
  byName: Map<string, { name: string; field: FilterField }>;
  names: string[];
  /** Most dot-separated segments in a field name: a longer member can only be a field plus a rest. */
  maxSegments: number;
}

const resolvedSchemas = new WeakMap<FilterSchema, ResolvedSchema>();

/** Snake_case names plus their lowerCamelCase aliases; an explicit schema key wins over an alias. */
function resolveSchema(schema: FilterSchema): ResolvedSchema {
  const cached = resolvedSchemas.get(schema);
  if (cached) return cached;
  const byName = new Map<string, { name: string; field: FilterField }>();
  const names = Object.keys(schema);
  for (const name of names) byName.set(name, { name, field: schema[name] });
  for (const name of names) {
    const alias = name.split('.').map(snakeSegmentToCamel).join('.');
    if (!byName.has(alias)) byName.set(alias, { name, field: schema[name] });
  }
  const resolved = { byName, names, maxSegments: Math.max(1, ...names.map((n) => n.split('.').length)) };
  resolvedSchemas.set(schema, resolved);
  return resolved;
}

const RANGE_OPS: Record<string, string> = { '<': '$lt', '<=': '$lte', '>': '$gt', '>=': '$gte' };

/** Compiles an AIP-160 filter to a MongoDB query document; blank text yields `{}`. */
export function compileFilter(text: string, schema: FilterSchema): Record<string, unknown> {
  return compileFilterAst(parseFilter(text), schema);
}

export function compileFilterAst(ast: FilterAst, schema: FilterSchema): Record<string, unknown> {
  return compileNode(ast, resolveSchema(schema));
}

function compileNode(node: FilterAst, schema: ResolvedSchema): Query {
  switch (node.kind) {
    case 'and': {
      const parts = node.children.map((c) => compileNode(c, schema)).flatMap((q) => flatten(q, '$and'));
      if (parts.length === 0) return {};
      return parts.length === 1 ? parts[0] : { $and: parts };
    }
    case 'or': {
      const parts = node.children.map((c) => compileNode(c, schema));
      // `x OR <match-all>` matches all; an empty part can only come from an empty composite.
      if (parts.some((p) => Object.keys(p).length === 0)) return {};
      const flat = parts.flatMap((q) => flatten(q, '$or'));
      return flat.length === 1 ? flat[0] : { $or: flat };
    }
    case 'not':
      return { $nor: [compileNode(node.child, schema)] };
    case 'restriction':
      return compileRestriction(node, schema);
  }
}

/** Lifts the operands of a nested `$and`/`$or` into its parent; drops match-all `{}` from ANDs. */
function flatten(q: Query, op: '$and' | '$or'): Query[] {
  const keys = Object.keys(q);
  if (keys.length === 0 && op === '$and') return [];
  const inner = q[op];
  if (keys.length === 1 && Array.isArray(inner)) return inner as Query[];
  return [q];
}

function compileRestriction(node: Extract<FilterAst, { kind: 'restriction' }>, schema: ResolvedSchema): Query {
  const { comparable, comparator, arg } = node;
  if (comparator === undefined || arg === undefined) {
    const lit = literalOf(comparable);
    if (!lit.quoted && ['and', 'or', 'not'].includes(lit.text.toLowerCase())) {
      throw syntaxError(`'${shown(lit.text)}' at column ${lit.column} is not an operator; AND, OR and NOT must be upper case`);
    }
    throw syntaxError(
      `bare value '${shown(lit.text)}' at column ${lit.column} is not supported; compare a field, e.g. field = value`,
    );
  }
  if (arg.kind === 'composite') {
    // `f = (a OR b)` means `f = a OR f = b`: substitute each bare value with the comparison.
    return compileNode(distribute(arg.expr, comparable, comparator), schema);
  }
  return compileComparison(comparable, comparator, literalOf(arg.member), schema);
}

function distribute(expr: FilterAst, comparable: FilterMember, comparator: Comparator): FilterAst {
  switch (expr.kind) {
    case 'and':
    case 'or':
      return { kind: expr.kind, children: expr.children.map((c) => distribute(c, comparable, comparator)) };
    case 'not':
      return { kind: 'not', child: distribute(expr.child, comparable, comparator) };
    case 'restriction':
      if (expr.comparator !== undefined) {
        throw syntaxError(
          `a parenthesised argument may only combine values with AND, OR and NOT (column ${expr.comparable.column})`,
        );
      }
      return { kind: 'restriction', comparable, comparator, arg: { kind: 'member', member: expr.comparable } };
  }
}

function compileComparison(comparable: FilterMember, op: Comparator, lit: Literal, schema: ResolvedSchema): Query {
  const names = comparable.segments.map((s) => s.text);
  const written = names.join('.');
  refuseProto(written, comparable.column);
  // Longest dotted prefix that names a field, so schemas may declare dotted names (`target.kind`).
  for (let k = Math.min(names.length, schema.maxSegments); k >= 1; k--) {
    const hit = schema.byName.get(names.slice(0, k).join('.'));
    if (!hit) continue;
    const rest = names.slice(k);
    const { name, field } = hit;
    if (field.type === 'map') {
      if (rest.length > 1) {
        throw syntaxError(`'${shown(written)}' traverses through a value of map '${name}'; map values are strings, use ${name}.<key>`);
      }
      if (rest.length === 1) {
        // Map keys are kept verbatim; their values compare as strings.
        return compileTyped(`${name}.${rest[0]}`, 'string', `${field.path}.${rest[0]}`, op, lit, field);
      }
      if (op !== ':') {
        throw syntaxError(`field '${name}' is a map; use ${name}.<key> ${op} value, or ${name}:<key> to test a key`);
      }
      if (isPresence(lit)) return presence('map', field.path);
      refuseProto(lit.text, lit.column);
      return { [`${field.path}.${lit.text}`]: { $exists: true } };
    }
    if (rest.length > 0) throw syntaxError(`field '${name}' has no sub-fields; got '${shown(written)}'`);
    return compileTyped(name, field.type, field.path, op, lit, field);
  }
  throw syntaxError(`unknown field '${shown(written)}'; filterable fields are: ${schema.names.join(', ')}`);
}

/** mingo refuses `__proto__` in a path (and a plain object would reach its prototype): never a field or key. */
function refuseProto(path: string, column: number): void {
  if (path.split('.').includes('__proto__')) throw syntaxError(`'__proto__' at column ${column} cannot name a field or map key`);
}

const isPresence = (lit: Literal) => lit.text === '*' && lit.literalStars.size === 0;

/**
 * AIP-160: "a field is only considered to be present if it has a non-default value". Each form is
 * one MongoDB runs and the SQLite store pushes down where the path is a declared scalar.
 */
function presence(type: FieldType, path: string): Query {
  switch (type) {
    case 'number':
      return { $or: [{ [path]: { $gt: 0 } }, { [path]: { $lt: 0 } }] };
    case 'boolean':
      return { [path]: true };
    case 'string[]':
      return { [`${path}.0`]: { $exists: true } };
    case 'map':
      return { [path]: { $type: 'object', $ne: {} } };
    default:
      // Strings (and enums, timestamps) bracket by type: only a non-empty string is greater than ''.
      return { [path]: { $gt: '' } };
  }
}

/** A leading and/or trailing unescaped `*` of a string value; a star anywhere else is literal. */
function wildcardOf(lit: Literal): LiteralPattern | null {
  const { text, literalStars } = lit;
  const n = text.length;
  const lead = n > 0 && text[0] === '*' && !literalStars.has(0);
  const trail = n > (lead ? 1 : 0) && text[n - 1] === '*' && !literalStars.has(n - 1);
  if (!lead && !trail) return null;
  const inner = text.slice(lead ? 1 : 0, trail ? n - 1 : n);
  // `*` and `**` match every string: the empty prefix.
  if (inner === '') return { kind: 'prefix', text: '' };
  return { kind: lead && trail ? 'contains' : lead ? 'suffix' : 'prefix', text: inner };
}

function compileTyped(
  name: string,
  type: Exclude<FieldType, 'map'>,
  path: string,
  op: Comparator,
  lit: Literal,
  field: FilterField,
): Query {
  if (op === ':' && isPresence(lit)) return presence(type, path);
  const notAllowed = (hint = '') => syntaxError(`operator '${op}' is not allowed on ${type} field '${name}'${hint}`);
  const compare = (value: unknown): Query => {
    if (op === '=' || op === ':') return { [path]: value };
    if (op === '!=') return { [path]: { $ne: value } };
    return { [path]: { [RANGE_OPS[op]]: value } };
  };
  // `:` is the substring search of the spec's lists ("filterable by substring"): it ignores case;
  // `=` and `!=` are as case-sensitive with a wildcard as without one.
  const wildcard = (pattern: LiteralPattern): Query => {
    const match = { [path]: literalCondition(op === ':' ? { ...pattern, ignoreCase: true } : pattern) };
    return op === '!=' ? { $nor: [match] } : match;
  };
  const value = shown(lit.text);
  switch (type) {
    case 'string': {
      const pattern = op === '=' || op === '!=' || op === ':' ? wildcardOf(lit) : null;
      return pattern ? wildcard(pattern) : compare(lit.text);
    }
    case 'string[]': {
      if (op !== ':') throw notAllowed("; use ':' to test for an element");
      // MongoDB matches a scalar condition against each array element.
      const pattern = wildcardOf(lit);
      return pattern ? wildcard(pattern) : { [path]: lit.text };
    }
    case 'number': {
      // No nested quantifiers: linear on any input.
      const n = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(lit.text) ? Number(lit.text) : NaN;
      if (!Number.isFinite(n)) throw syntaxError(`field '${name}' is number, got '${value}'`);
      return compare(n);
    }
    case 'boolean':
      if (op !== '=' && op !== ':' && op !== '!=') throw notAllowed();
      if (lit.text !== 'true' && lit.text !== 'false') throw syntaxError(`field '${name}' is boolean, got '${value}'`);
      return compare(lit.text === 'true');
    case 'timestamp': {
      const iso = normaliseTimestamp(lit.text);
      if (iso === undefined) {
        throw syntaxError(`field '${name}' is timestamp, got '${value}' (expected RFC 3339, e.g. '2024-01-31T12:00:00Z')`);
      }
      return compare(iso);
    }
    case 'enum': {
      if (op !== '=' && op !== ':' && op !== '!=') throw notAllowed();
      const values = field.values;
      if (values && !values.includes(lit.text)) {
        throw syntaxError(`field '${name}' is enum, got '${value}'; allowed values are: ${values.join(', ')}`);
      }
      return compare(lit.text);
    }
  }
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * RFC 3339 text to the `toISOString()` form documents store, so string comparison orders correctly.
 * Sub-millisecond digits are truncated (documents carry milliseconds). Undefined when invalid,
 * including impossible dates such as February 30 that `Date` would silently roll over.
 */
export function normaliseTimestamp(text: string): string | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (day < 1 || probe.getUTCDate() !== day) return undefined;
  if (m[9] !== undefined && (Number(m[10]) > 23 || Number(m[11]) > 59)) return undefined;
  const date = new Date(text.replace(/[t ]/, 'T').replace(/z$/, 'Z'));
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
