/**
 * AIP-160 filters: a parser that follows the EBNF of https://google.aip.dev/160 and a compiler
 * that checks the AST against a resource's filterable fields and emits a MongoDB query document.
 *
 * Grammar (whitespace-separated tokens; AND, OR, NOT are case-sensitive keywords):
 *   filter      : [expression]
 *   expression  : sequence {WS AND WS sequence}
 *   sequence    : factor {WS factor}              -- implicit AND
 *   factor      : term {WS OR WS term}            -- OR binds tighter than AND
 *   term        : [(NOT WS | MINUS)] simple
 *   simple      : restriction | composite
 *   restriction : comparable [comparator arg]
 *   composite   : '(' expression ')'
 *   comparable  : member                          -- function calls are rejected
 *   member      : value {'.' field}
 *   arg         : comparable | composite
 *
 * Semantics chosen where AIP-160 leaves room:
 * - `:` on a string is equality unless the value has an unescaped `*`, which makes it a wildcard
 *   (`'*text*'` contains, `'text*'` prefix, `'*text'` suffix). Wildcard matches are
 *   case-insensitive, because they serve substring search in UIs; exact comparisons stay
 *   case-sensitive. `\*` inside a quoted string is a literal star. `=` never treats `*` as a wildcard.
 * - `field:*` (quoted or not) tests presence (`$exists: true`), for every field type.
 * - Values may be quoted or bare for every type; the field type decides how the text is read.
 * - A parenthesised argument (`status = (A OR B)`) distributes the comparison over its values.
 */
import { DomainError } from '@svc/domain/shared/domain-error';

export type Comparator = '<=' | '<' | '>=' | '>' | '!=' | '=' | ':';

/** One `value` or `field` of a member: unquoted text or a (decoded) quoted string. */
export interface FilterText {
  text: string;
  quoted: boolean;
  /** 1-based column of the token in the filter text. */
  column: number;
  /** Indices in `text` of `*` characters written escaped (`\*`), which are never wildcards. */
  literalStars?: readonly number[];
}

export interface FilterMember {
  segments: readonly FilterText[];
  column: number;
}

export type FilterArg = { kind: 'member'; member: FilterMember } | { kind: 'composite'; expr: FilterAst };

export type FilterAst =
  | { kind: 'and'; children: FilterAst[] }
  | { kind: 'or'; children: FilterAst[] }
  | { kind: 'not'; child: FilterAst }
  | { kind: 'restriction'; comparable: FilterMember; comparator?: Comparator; arg?: FilterArg };

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

const syntaxError = (message: string) => new DomainError('INVALID_ARGUMENT', `filter: ${message}`);

// ---------------------------------------------------------------------------------------------
// Lexer

type TokenKind = 'word' | 'string' | 'lparen' | 'rparen' | 'dot' | 'cmp' | 'minus' | 'eof';

interface Token {
  kind: TokenKind;
  /** Decoded text (strings unescaped), or the operator / punctuation itself. */
  text: string;
  /** Source slice, for error messages. */
  raw: string;
  column: number;
  /** Whether whitespace precedes the token; the grammar needs it to tell sequences from members. */
  spaceBefore: boolean;
  literalStars?: number[];
}

// Characters that end an unquoted word. `-` and `*` are word characters (`a-b`, `foo*`).
const DELIMITERS = new Set(['(', ')', '.', ',', '<', '>', '=', '!', ':', '"', "'", '\\']);
const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v';
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isWordChar = (c: string) => !isSpace(c) && !DELIMITERS.has(c);

const SIMPLE_ESCAPES: Record<string, string> = {
  n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v', a: '\x07',
  '\\': '\\', "'": "'", '"': '"', '`': '`', '?': '?',
};

function lex(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let spaceBefore = false;
  const push = (kind: TokenKind, text: string, start: number, extra?: Partial<Token>) => {
    tokens.push({ kind, text, raw: src.slice(start, i), column: start + 1, spaceBefore, ...extra });
    spaceBefore = false;
  };
  while (i < src.length) {
    const c = src[i];
    const start = i;
    if (isSpace(c)) {
      i++;
      spaceBefore = true;
    } else if (c === '(' || c === ')' || c === '.') {
      i++;
      push(c === '(' ? 'lparen' : c === ')' ? 'rparen' : 'dot', c, start);
    } else if (c === '<' || c === '>' || c === '!') {
      i += src[i + 1] === '=' ? 2 : 1;
      const op = src.slice(start, i);
      if (op === '!') throw syntaxError(`unexpected '!' at column ${start + 1}`);
      push('cmp', op, start);
    } else if (c === '=' || c === ':') {
      i++;
      push('cmp', c, start);
    } else if (c === '"' || c === "'") {
      const { text, literalStars, end } = readString(src, i);
      i = end;
      push('string', text, start, { literalStars });
    } else if (c === '-' && !(isDigit(src[i + 1]) || (src[i + 1] === '.' && isDigit(src[i + 2])))) {
      // A leading minus negates the term; `-5` is a negative number, read as a word.
      i++;
      push('minus', '-', start);
    } else if (isWordChar(c)) {
      i++;
      while (i < src.length && isWordChar(src[i])) i++;
      push('word', src.slice(start, i), start);
    } else {
      throw syntaxError(`unexpected '${c}' at column ${start + 1}`);
    }
  }
  tokens.push({ kind: 'eof', text: '', raw: '', column: src.length + 1, spaceBefore });
  return tokens;
}

function readString(src: string, open: number): { text: string; literalStars: number[]; end: number } {
  const quote = src[open];
  let text = '';
  const literalStars: number[] = [];
  let i = open + 1;
  while (i < src.length) {
    const c = src[i];
    if (c === quote) return { text, literalStars, end: i + 1 };
    if (c !== '\\') {
      text += c;
      i++;
      continue;
    }
    const e = src[i + 1];
    if (e === undefined) break;
    if (e === '*') {
      literalStars.push(text.length);
      text += '*';
      i += 2;
    } else if (e in SIMPLE_ESCAPES) {
      text += SIMPLE_ESCAPES[e];
      i += 2;
    } else if (e === 'x' || e === 'u' || e === 'U') {
      const width = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const hex = src.slice(i + 2, i + 2 + width);
      const code = /^[0-9a-fA-F]+$/.test(hex) && hex.length === width ? parseInt(hex, 16) : NaN;
      if (!(code <= 0x10ffff)) throw syntaxError(`invalid escape '\\${e}${hex}' at column ${i + 1}`);
      text += String.fromCodePoint(code);
      i += 2 + width;
    } else {
      throw syntaxError(`invalid escape '\\${e}' at column ${i + 1}`);
    }
  }
  throw syntaxError(`unterminated string starting at column ${open + 1}`);
}

// ---------------------------------------------------------------------------------------------
// Parser

const KEYWORDS = new Set(['AND', 'OR', 'NOT']);

class Parser {
  private pos = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): FilterAst {
    if (this.peek().kind === 'eof') return { kind: 'and', children: [] };
    const expr = this.expression();
    if (this.peek().kind !== 'eof') throw this.unexpected(this.peek());
    return expr;
  }

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.pos + offset, this.tokens.length - 1)];
  }

  private next(): Token {
    const t = this.peek();
    if (t.kind !== 'eof') this.pos++;
    return t;
  }

  private isKeyword(t: Token, kw: string): boolean {
    return t.kind === 'word' && t.text === kw;
  }

  private unexpected(t: Token): DomainError {
    if (t.kind === 'eof') return syntaxError(`unexpected end of input at column ${t.column}`);
    const shown = t.raw.length > 30 ? `${t.raw.slice(0, 27)}...` : t.raw;
    return syntaxError(`unexpected '${shown}' at column ${t.column}`);
  }

  private expression(): FilterAst {
    const parts = [this.sequence()];
    while (this.isKeyword(this.peek(), 'AND')) {
      this.requireSpaceAround(this.next());
      parts.push(this.sequence());
    }
    return parts.length === 1 ? parts[0] : { kind: 'and', children: parts };
  }

  private sequence(): FilterAst {
    const parts = [this.factor()];
    // Implicit AND: another term after whitespace. Without whitespace (`a=1(b)`) it is a syntax error.
    while (this.startsTerm(this.peek()) && this.peek().spaceBefore) parts.push(this.factor());
    return parts.length === 1 ? parts[0] : { kind: 'and', children: parts };
  }

  private factor(): FilterAst {
    const parts = [this.term()];
    while (this.isKeyword(this.peek(), 'OR')) {
      this.requireSpaceAround(this.next());
      parts.push(this.term());
    }
    return parts.length === 1 ? parts[0] : { kind: 'or', children: parts };
  }

  private term(): FilterAst {
    const t = this.peek();
    if (this.isKeyword(t, 'NOT')) {
      this.next();
      const after = this.peek();
      if (!after.spaceBefore && after.kind !== 'lparen') throw this.unexpected(after);
      return { kind: 'not', child: this.simple() };
    }
    if (t.kind === 'minus') {
      this.next();
      return { kind: 'not', child: this.simple() };
    }
    return this.simple();
  }

  private simple(): FilterAst {
    if (this.peek().kind === 'lparen') return this.composite();
    const comparable = this.member();
    if (this.peek().kind !== 'cmp') return { kind: 'restriction', comparable };
    const comparator = this.next().text as Comparator;
    const arg: FilterArg =
      this.peek().kind === 'lparen' ? { kind: 'composite', expr: this.composite() } : { kind: 'member', member: this.member() };
    return { kind: 'restriction', comparable, comparator, arg };
  }

  private composite(): FilterAst {
    this.next(); // '('
    const expr = this.expression();
    const close = this.next();
    if (close.kind !== 'rparen') throw this.unexpected(close);
    return expr;
  }

  private member(): FilterMember {
    const first = this.next();
    if (!this.isValue(first)) throw this.unexpected(first);
    const segments = [this.text(first)];
    while (this.peek().kind === 'dot' && !this.peek().spaceBefore) {
      this.next();
      const field = this.next();
      // Keywords are valid field names after a dot (`a.AND`), per the `field` production.
      if ((field.kind !== 'word' && field.kind !== 'string') || field.spaceBefore) throw this.unexpected(field);
      segments.push(this.text(field));
    }
    const after = this.peek();
    if (after.kind === 'lparen' && !after.spaceBefore) {
      throw syntaxError(`function calls are not supported (column ${first.column})`);
    }
    return { segments, column: first.column };
  }

  private isValue(t: Token): boolean {
    return t.kind === 'string' || (t.kind === 'word' && !KEYWORDS.has(t.text));
  }

  private startsTerm(t: Token): boolean {
    return t.kind === 'lparen' || t.kind === 'minus' || this.isValue(t) || this.isKeyword(t, 'NOT');
  }

  private text(t: Token): FilterText {
    return t.literalStars?.length
      ? { text: t.text, quoted: t.kind === 'string', column: t.column, literalStars: t.literalStars }
      : { text: t.text, quoted: t.kind === 'string', column: t.column };
  }

  /** `WS AND WS`: `a=1 AND(b=2)` is tolerated, `a=1 AND` followed directly by a quote is not. */
  private requireSpaceAround(kw: Token): void {
    const after = this.peek();
    if (!kw.spaceBefore) throw this.unexpected(kw);
    if (!after.spaceBefore && after.kind !== 'lparen') throw this.unexpected(after);
  }
}

/** Parses an AIP-160 filter. Empty or blank text yields an empty AND (matches everything). */
export function parseFilter(text: string): FilterAst {
  return new Parser(lex(text)).parse();
}

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
  const resolved = { byName, names };
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
      throw syntaxError(`'${lit.text}' at column ${lit.column} is not an operator; AND, OR and NOT must be upper case`);
    }
    throw syntaxError(
      `bare value '${lit.text}' at column ${lit.column} is not supported; compare a field, e.g. field = value`,
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
  // Longest dotted prefix that names a field, so schemas may declare dotted names (`target.kind`).
  for (let k = names.length; k >= 1; k--) {
    const hit = schema.byName.get(names.slice(0, k).join('.'));
    if (!hit) continue;
    const rest = names.slice(k);
    const { name, field } = hit;
    if (field.type === 'map') {
      if (rest.length > 0) {
        // Map keys are kept verbatim; their values compare as strings.
        return compileTyped(`${name}.${rest.join('.')}`, 'string', `${field.path}.${rest.join('.')}`, op, lit, field);
      }
      if (op !== ':') {
        throw syntaxError(`field '${name}' is a map; use ${name}.<key> ${op} value, or ${name}:<key> to test a key`);
      }
      if (isPresence(lit)) return { [field.path]: { $exists: true } };
      return { [`${field.path}.${lit.text}`]: { $exists: true } };
    }
    if (rest.length > 0) throw syntaxError(`field '${name}' has no sub-fields; got '${written}'`);
    return compileTyped(name, field.type, field.path, op, lit, field);
  }
  throw syntaxError(`unknown field '${written}'; filterable fields are: ${schema.names.join(', ')}`);
}

const isPresence = (lit: Literal) => lit.text === '*' && lit.literalStars.size === 0;
const hasWildcard = (lit: Literal) => {
  for (let i = lit.text.indexOf('*'); i >= 0; i = lit.text.indexOf('*', i + 1)) if (!lit.literalStars.has(i)) return true;
  return false;
};

function compileTyped(
  name: string,
  type: Exclude<FieldType, 'map'>,
  path: string,
  op: Comparator,
  lit: Literal,
  field: FilterField,
): Query {
  if (op === ':' && isPresence(lit)) return { [path]: { $exists: true } };
  const notAllowed = (hint = '') => syntaxError(`operator '${op}' is not allowed on ${type} field '${name}'${hint}`);
  const compare = (value: unknown): Query => {
    if (op === '=' || op === ':') return { [path]: value };
    if (op === '!=') return { [path]: { $ne: value } };
    return { [path]: { [RANGE_OPS[op]]: value } };
  };
  switch (type) {
    case 'string':
      if (op === ':' && hasWildcard(lit)) return { [path]: wildcardRegex(lit) };
      return compare(lit.text);
    case 'string[]':
      if (op !== ':') throw notAllowed("; use ':' to test for an element");
      // MongoDB matches a scalar condition against each array element.
      return { [path]: hasWildcard(lit) ? wildcardRegex(lit) : lit.text };
    case 'number': {
      const n = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(lit.text) ? Number(lit.text) : NaN;
      if (!Number.isFinite(n)) throw syntaxError(`field '${name}' is number, got '${lit.text}'`);
      return compare(n);
    }
    case 'boolean':
      if (op !== '=' && op !== ':' && op !== '!=') throw notAllowed();
      if (lit.text !== 'true' && lit.text !== 'false') throw syntaxError(`field '${name}' is boolean, got '${lit.text}'`);
      return compare(lit.text === 'true');
    case 'timestamp': {
      const iso = normaliseTimestamp(lit.text);
      if (iso === undefined) {
        throw syntaxError(`field '${name}' is timestamp, got '${lit.text}' (expected RFC 3339, e.g. '2024-01-31T12:00:00Z')`);
      }
      return compare(iso);
    }
    case 'enum': {
      if (op !== '=' && op !== ':' && op !== '!=') throw notAllowed();
      const values = field.values;
      if (values && !values.includes(lit.text)) {
        throw syntaxError(`field '${name}' is enum, got '${lit.text}'; allowed values are: ${values.join(', ')}`);
      }
      return compare(lit.text);
    }
  }
}

/**
 * `*` becomes "any characters" (including newlines); a leading or trailing `*` drops the anchor
 * instead, so `'*text*'` is the plain pattern `text` (contains), `'text*'` is `^text` (prefix) and
 * `'*text'` is `text$` (suffix). Everything else is escaped and matched case-insensitively.
 */
function wildcardRegex(lit: Literal): { $regex: string; $options: string } {
  const parts: string[] = [''];
  // Code-unit indices, to line up with `literalStars`.
  for (let i = 0; i < lit.text.length; i++) {
    const c = lit.text[i];
    if (c === '*' && !lit.literalStars.has(i)) parts.push('');
    else parts[parts.length - 1] += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  const start = parts[0] === '' ? '' : '^';
  const end = parts[parts.length - 1] === '' ? '' : '$';
  return { $regex: start + parts.filter((p) => p !== '').join('[\\s\\S]*') + end, $options: 'i' };
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
