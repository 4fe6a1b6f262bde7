/**
 * AIP-160 filter syntax: a lexer and a parser that follow the EBNF of https://google.aip.dev/160,
 * and the limits that bound what a filter may cost. The compiler (filter.ts) gives the AST meaning.
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
 * Limits (FILTER_LIMITS) are checked before the work they bound: the length before lexing, the
 * nesting depth before each recursive descent, the number of terms as they are parsed. Within them
 * every stage (parser, compiler, SQL translation, MongoDB) stays far from its own limits.
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

export const syntaxError = (message: string) => new DomainError('INVALID_ARGUMENT', `filter: ${message}`);

/** Quotes user text in a message, capped so an error never echoes a whole filter. */
export function shown(text: string): string {
  return text.length > 30 ? `${text.slice(0, 27)}...` : text;
}

/**
 * What a filter may cost. No hand-written filter comes near them; a generated one that does is
 * refused with a message naming the limit (docs/operations.md lists them).
 */
export const FILTER_LIMITS = {
  /** Characters (UTF-16 code units) of filter text. */
  maxLength: 8192,
  /** Parentheses and negations (NOT, `-`) open at once. */
  maxDepth: 32,
  /** Comparisons, counting each value of a parenthesised argument (`f = (a OR b)` is 3). */
  maxTerms: 200,
} as const;

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
      // A surrogate code point is no character: it would make the text malformed Unicode.
      if (!(code <= 0x10ffff) || (code >= 0xd800 && code <= 0xdfff)) {
        throw syntaxError(`invalid escape '\\${e}${hex}' at column ${i + 1}`);
      }
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
  /** Parentheses and negations open on the current descent. */
  private depth = 0;
  private terms = 0;
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
    return syntaxError(`unexpected '${shown(t.raw)}' at column ${t.column}`);
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
      return this.nested(t, () => ({ kind: 'not', child: this.simple() }));
    }
    if (t.kind === 'minus') {
      this.next();
      return this.nested(t, () => ({ kind: 'not', child: this.simple() }));
    }
    return this.simple();
  }

  /** Descends one level, refusing to before recursion could exhaust the stack or a store's limits. */
  private nested<T>(opener: Token, parse: () => T): T {
    if (++this.depth > FILTER_LIMITS.maxDepth) {
      throw syntaxError(
        `more than ${FILTER_LIMITS.maxDepth} nested parentheses and negations (limit reached at column ${opener.column})`,
      );
    }
    const result = parse();
    this.depth--;
    return result;
  }

  private simple(): FilterAst {
    if (this.peek().kind === 'lparen') return this.composite();
    const comparable = this.member();
    if (++this.terms > FILTER_LIMITS.maxTerms) {
      throw syntaxError(
        `more than ${FILTER_LIMITS.maxTerms} terms (comparisons, and values of parenthesised arguments; limit reached at column ${comparable.column})`,
      );
    }
    if (this.peek().kind !== 'cmp') return { kind: 'restriction', comparable };
    const comparator = this.next().text as Comparator;
    const arg: FilterArg =
      this.peek().kind === 'lparen' ? { kind: 'composite', expr: this.composite() } : { kind: 'member', member: this.member() };
    return { kind: 'restriction', comparable, comparator, arg };
  }

  private composite(): FilterAst {
    const open = this.next(); // '('
    return this.nested(open, () => {
      const expr = this.expression();
      const close = this.next();
      if (close.kind !== 'rparen') throw this.unexpected(close);
      return expr;
    });
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
  if (text.length > FILTER_LIMITS.maxLength) {
    throw syntaxError(`${text.length} characters long; the limit is ${FILTER_LIMITS.maxLength}`);
  }
  const surrogate = /\p{Cs}/u.exec(text);
  if (surrogate) throw syntaxError(`lone UTF-16 surrogate at column ${surrogate.index + 1}; a filter is Unicode text`);
  return new Parser(lex(text)).parse();
}

