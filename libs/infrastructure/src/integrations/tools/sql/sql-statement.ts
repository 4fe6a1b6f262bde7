/**
 * One statement only: a single linear pass over the text that knows the dialect's quotes and
 * comments, so a `;` inside a string, a quoted name, a comment or a PostgreSQL dollar-quoted body
 * is not taken for a separator. Nothing is sent when the text holds a second statement; the
 * drivers add their own guard behind this one (PostgreSQL's extended protocol, mysql2 without
 * multipleStatements). No regular expression runs over the input.
 */
import { ToolError } from '../tool-adapter.port';

export type SqlDialect = 'postgres' | 'mysql';

/** Longest statement accepted (characters), checked before scanning. */
export const MAX_SQL_CHARS = 100_000;
/** PostgreSQL identifiers (and so dollar-quote tags) are at most 63 bytes. */
const MAX_DOLLAR_TAG = 64;

/**
 * Statements that would change or leave the guard the tool runs under (the read-only transaction
 * and its timeout), refused before sending; everything else is left to the read-only transaction.
 */
const GUARD_KEYWORDS: ReadonlySet<string> = new Set([
  'begin', 'start', 'commit', 'rollback', 'end', 'abort', 'savepoint', 'release', 'set', 'reset', 'discard', 'lock', 'unlock', 'kill', 'shutdown',
  // Reads that write outside the database, which a read-only transaction allows: PostgreSQL's
  // COPY ... TO a file or a program; MySQL's SELECT ... INTO OUTFILE / DUMPFILE (refused below).
  'copy',
]);
/** MySQL's file writers, refused when they follow INTO. */
const FILE_TARGETS: ReadonlySet<string> = new Set(['outfile', 'dumpfile']);

export interface SingleStatement {
  /** The statement without surrounding whitespace and trailing semicolons. */
  text: string;
  /** The first word outside comments, lower-cased (`select`, `with`, `show`, ...); '' when none. */
  keyword: string;
}

/**
 * The one statement of `sql`, or an INVALID_ARGUMENT naming what is wrong: empty, too long, two
 * statements, an unterminated string or comment, a statement that would leave the tool's guard.
 */
export function singleStatement(sql: string, dialect: SqlDialect): SingleStatement {
  if (sql.length > MAX_SQL_CHARS) throw new ToolError('INVALID_ARGUMENT', `the statement is longer than ${MAX_SQL_CHARS} characters`);
  const n = sql.length;
  let i = 0;
  /** End of the statement's text (exclusive), past its last non-blank character outside separators. */
  let end = -1;
  let start = -1;
  let keyword = '';
  let keywordDone = false;
  let separated = false;
  let previousWord = '';
  const content = (from: number, to: number) => {
    if (separated) throw new ToolError('INVALID_ARGUMENT', 'only one statement is accepted; the text holds another after a `;`');
    if (start < 0) start = from;
    end = to;
  };
  while (i < n) {
    const c = sql[i];
    const next = i + 1 < n ? sql[i + 1] : '';
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f') {
      i++;
    } else if (c === ';') {
      if (start >= 0) separated = true;
      i++;
    } else if (c === '-' && next === '-' && (dialect === 'postgres' || isMysqlDashComment(sql, i))) {
      i = lineEnd(sql, i);
    } else if (c === '#' && dialect === 'mysql') {
      i = lineEnd(sql, i);
    } else if (c === '/' && next === '*') {
      if (dialect === 'mysql' && (sql[i + 2] === '!' || sql[i + 2] === '+')) {
        // MySQL runs the text of `/*! ... */` as SQL: it is not a comment to skip.
        throw new ToolError('INVALID_ARGUMENT', 'MySQL executable comments (`/*! ... */`, `/*+ ... */`) are not accepted');
      }
      i = blockCommentEnd(sql, i, dialect === 'postgres');
    } else if (c === "'" || c === '"' || (c === '`' && dialect === 'mysql')) {
      const from = i;
      const backslash = dialect === 'mysql' ? c !== '`' : c === "'" && isEscapeString(sql, i);
      i = quotedEnd(sql, i, c, backslash);
      content(from, i);
      keywordDone = true;
    } else if (c === '$' && dialect === 'postgres' && dollarTag(sql, i) !== null) {
      const from = i;
      const tag = dollarTag(sql, i) as string;
      const close = sql.indexOf(tag, i + tag.length);
      if (close < 0) throw new ToolError('INVALID_ARGUMENT', `the statement has an unterminated dollar-quoted string (${tag})`);
      i = close + tag.length;
      content(from, i);
      keywordDone = true;
    } else if (isWordChar(c)) {
      const from = i;
      while (i < n && isWordChar(sql[i])) i++;
      // Only short words can be keywords: a long identifier is not lower-cased (linear either way).
      const word = i - from <= 16 ? sql.slice(from, i).toLowerCase() : '';
      if (!keywordDone) {
        keyword = word;
        keywordDone = true;
      }
      if (previousWord === 'into' && FILE_TARGETS.has(word)) {
        throw new ToolError('INVALID_ARGUMENT', `'INTO ${word.toUpperCase()}' writes a file on the database server: not accepted`);
      }
      previousWord = word;
      content(from, i);
    } else {
      content(i, i + 1);
      keywordDone = true;
      i++;
    }
  }
  if (start < 0) throw new ToolError('INVALID_ARGUMENT', 'the statement is empty');
  if (GUARD_KEYWORDS.has(keyword)) {
    throw new ToolError('INVALID_ARGUMENT', `'${keyword.toUpperCase()}' statements are not accepted: the tool runs every statement in a read-only transaction of its own`);
  }
  return { text: sql.slice(start, end), keyword };
}

function isWordChar(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c === '_' || c > '\u007f';
}

/** MySQL reads `--` as a comment only when a blank or a control character follows. */
function isMysqlDashComment(sql: string, i: number): boolean {
  const after = sql[i + 2];
  return after === undefined || after <= ' ';
}

function lineEnd(sql: string, i: number): number {
  const nl = sql.indexOf('\n', i);
  return nl < 0 ? sql.length : nl + 1;
}

/** Past the `*\/` closing the comment at `i`; PostgreSQL nests block comments, MySQL does not. */
function blockCommentEnd(sql: string, i: number, nested: boolean): number {
  let depth = 0;
  const n = sql.length;
  while (i < n) {
    if (sql[i] === '/' && sql[i + 1] === '*' && (nested || depth === 0)) {
      depth++;
      i += 2;
    } else if (sql[i] === '*' && sql[i + 1] === '/') {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else {
      i++;
    }
  }
  throw new ToolError('INVALID_ARGUMENT', 'the statement has an unterminated /* comment');
}

/** Past the quote closing the one at `i`; a doubled quote is part of the text, and so is an escaped one where backslashes escape. */
function quotedEnd(sql: string, i: number, quote: string, backslash: boolean): number {
  const n = sql.length;
  i++;
  while (i < n) {
    const c = sql[i];
    if (backslash && c === '\\') {
      i += 2;
    } else if (c === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else {
      i++;
    }
  }
  throw new ToolError('INVALID_ARGUMENT', `the statement has an unterminated ${quote === "'" ? 'string' : 'quoted name'} (${quote})`);
}

/** PostgreSQL's `E'...'` strings take backslash escapes; standard strings do not. */
function isEscapeString(sql: string, i: number): boolean {
  const before = sql[i - 1];
  return (before === 'E' || before === 'e') && (i < 2 || !isWordChar(sql[i - 2]));
}

/** The `$tag$` opening at `i` (tag empty or an identifier not starting with a digit), or null. */
function dollarTag(sql: string, i: number): string | null {
  if (i > 0 && isWordChar(sql[i - 1])) return null; // `a$1$` is part of a name, `$1` a parameter
  let j = i + 1;
  const limit = Math.min(sql.length, i + 1 + MAX_DOLLAR_TAG);
  while (j < limit && sql[j] !== '$') {
    if (!isWordChar(sql[j]) || (j === i + 1 && sql[j] >= '0' && sql[j] <= '9')) return null;
    j++;
  }
  return j < limit && sql[j] === '$' ? sql.slice(i, j + 1) : null;
}
