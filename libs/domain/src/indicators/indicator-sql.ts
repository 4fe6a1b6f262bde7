/**
 * An indicator's SQL as text in the dialect of the database it reads (spec part 3, "CreateIndicator
 * validation"; docs/decisions.md, "Indicators planned against the live schema"): one linear scan
 * tells placeholders, words, quoted names, strings and comments apart, so `@end_time` inside a string
 * or a comment is not a placeholder. Compiling substitutes the dialect's typed literals for the
 * placeholders and leaves every other character as written. Planning is not here: it needs a real
 * engine (libs/infrastructure/src/integrations/indicators).
 */
import { invalid } from '../shared/domain-error';

export const PLACEHOLDERS = ['start_time', 'end_time', 'resolution'] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];

/** The SQL dialects an indicator query may be written in: the connection's database's. */
export const SQL_DIALECTS = ['postgresql', 'mysql', 'bigquery'] as const;
export type SqlDialect = (typeof SQL_DIALECTS)[number];

export type SqlTokenKind = 'word' | 'quoted' | 'string' | 'placeholder' | 'number' | 'comment' | 'space' | 'punct';

export interface SqlToken {
  kind: SqlTokenKind;
  /** Offsets into the SQL: `sql.slice(start, end)` is the token as written. */
  start: number;
  end: number;
  /** Words: the word lowercased; quoted names: the name unquoted; placeholders: the name after `@`. */
  value: string;
  /** The quote of a quoted name or string (`"`, `` ` ``, `'`, `$tag$`). */
  quote?: string;
}

const WORD_START = /[A-Za-z_\u0080-\uffff]/;
const WORD_PART = /[A-Za-z0-9_$\u0080-\uffff]/;

/**
 * The tokens of `sql`, in order, covering every character once (linear). Strings: `'...'` with `''`
 * (and, in MySQL and BigQuery, a backslash) escaping; PostgreSQL's `$tag$...$tag$`. Quoted names:
 * `"..."` in PostgreSQL, `` `...` `` in MySQL and BigQuery (where `"..."` is a string). Comments:
 * `--`, `/* *\/`, and `#` in MySQL and BigQuery. An unterminated string or comment runs to the end.
 */
export function* sqlTokens(sql: string, dialect: SqlDialect): Generator<SqlToken> {
  const backslash = dialect !== 'postgresql';
  const nameQuote = dialect === 'postgresql' ? '"' : '`';
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const start = i;
    const c = sql[i];
    const next = sql[i + 1];
    if (c === '-' && next === '-') {
      while (i < n && sql[i] !== '\n') i++;
      yield { kind: 'comment', start, end: i, value: '' };
    } else if (c === '#' && dialect !== 'postgresql') {
      while (i < n && sql[i] !== '\n') i++;
      yield { kind: 'comment', start, end: i, value: '' };
    } else if (c === '/' && next === '*') {
      const close = sql.indexOf('*/', i + 2);
      i = close < 0 ? n : close + 2;
      yield { kind: 'comment', start, end: i, value: '' };
    } else if (c === "'" || c === '"' || c === '`') {
      let value = '';
      i++;
      while (i < n) {
        const d = sql[i];
        if (d === '\\' && backslash && c !== '`') {
          value += sql.slice(i, i + 2);
          i += 2;
        } else if (d === c && sql[i + 1] === c) {
          value += c;
          i += 2;
        } else if (d === c) {
          i++;
          break;
        } else {
          value += d;
          i++;
        }
      }
      const kind = c === "'" || (c === '"' && nameQuote !== '"') ? 'string' : 'quoted';
      yield { kind, start, end: i, value, quote: c };
    } else if (c === '$' && dialect === 'postgresql' && /^\$[A-Za-z_]*\$/.test(sql.slice(i, i + 64))) {
      const tag = /^\$[A-Za-z_]*\$/.exec(sql.slice(i, i + 64))![0];
      const close = sql.indexOf(tag, i + tag.length);
      i = close < 0 ? n : close + tag.length;
      yield { kind: 'string', start, end: i, value: sql.slice(start + tag.length, close < 0 ? n : close), quote: tag };
    } else if (c === '@' && next !== undefined && WORD_START.test(next)) {
      i++;
      while (i < n && WORD_PART.test(sql[i])) i++;
      yield { kind: 'placeholder', start, end: i, value: sql.slice(start + 1, i) };
    } else if (WORD_START.test(c)) {
      while (i < n && WORD_PART.test(sql[i])) i++;
      yield { kind: 'word', start, end: i, value: sql.slice(start, i).toLowerCase() };
    } else if (/[0-9]/.test(c) || (c === '.' && next !== undefined && /[0-9]/.test(next))) {
      while (i < n && /[0-9A-Za-z_.]/.test(sql[i])) i++;
      yield { kind: 'number', start, end: i, value: sql.slice(start, i) };
    } else if (/\s/.test(c)) {
      while (i < n && /\s/.test(sql[i])) i++;
      yield { kind: 'space', start, end: i, value: ' ' };
    } else {
      i++;
      yield { kind: 'punct', start, end: i, value: c };
    }
  }
}

/**
 * The placeholder rule: `@start_time`, `@end_time` and `@resolution` each referenced (outside
 * strings and comments), and no other `@name`. Names every missing or unknown one.
 */
export function checkPlaceholders(sql: string, dialect: SqlDialect): void {
  const found = new Set<string>();
  for (const token of sqlTokens(sql, dialect)) if (token.kind === 'placeholder') found.add(token.value.toLowerCase());
  const missing = PLACEHOLDERS.filter((p) => !found.has(p));
  if (missing.length > 0) throw invalid(`indicator.query.engine_sql must reference ${missing.map((p) => `@${p}`).join(', ')}`);
  const unknown = [...found].filter((p) => !(PLACEHOLDERS as readonly string[]).includes(p));
  if (unknown.length > 0) {
    throw invalid(`indicator.query.engine_sql uses unknown placeholder ${unknown.map((p) => `@${p}`).join(', ')}; only @start_time, @end_time and @resolution exist`);
  }
}

/** A window's values for the placeholders. `resolution` in seconds. */
export interface QueryWindow {
  startTime: string;
  endTime: string;
  resolutionSeconds: number;
}

/** `2024-01-01T00:00:00.000Z` as MySQL writes a UTC datetime: `2024-01-01 00:00:00.000`. */
const mysqlDateTime = (iso: string) => iso.replace('T', ' ').replace(/(Z|[+-]\d\d:\d\d)$/, '');

/**
 * The typed literal of each placeholder in `dialect`, valid there as written (PostgreSQL rejects
 * MySQL's `INTERVAL 60 SECOND`; MySQL has no `TIMESTAMPTZ`). Sub-second resolutions keep their
 * precision (milliseconds; MySQL's smallest interval unit with a literal is MICROSECOND).
 */
export function placeholderLiterals(window: QueryWindow, dialect: SqlDialect): Record<Placeholder, string> {
  const millis = Math.round(window.resolutionSeconds * 1000);
  const whole = millis % 1000 === 0;
  switch (dialect) {
    case 'postgresql':
      return {
        start_time: `TIMESTAMPTZ '${window.startTime}'`,
        end_time: `TIMESTAMPTZ '${window.endTime}'`,
        resolution: whole ? `INTERVAL '${millis / 1000} seconds'` : `INTERVAL '${millis} milliseconds'`,
      };
    case 'mysql':
      return {
        start_time: `TIMESTAMP '${mysqlDateTime(window.startTime)}'`,
        end_time: `TIMESTAMP '${mysqlDateTime(window.endTime)}'`,
        resolution: whole ? `INTERVAL ${millis / 1000} SECOND` : `INTERVAL ${millis * 1000} MICROSECOND`,
      };
    case 'bigquery':
      return {
        start_time: `TIMESTAMP '${window.startTime}'`,
        end_time: `TIMESTAMP '${window.endTime}'`,
        resolution: whole ? `INTERVAL ${millis / 1000} SECOND` : `INTERVAL ${millis} MILLISECOND`,
      };
  }
}

/** The SQL with each placeholder replaced by `literals[name]`; everything else as written. */
export function substitutePlaceholders(sql: string, dialect: SqlDialect, literals: Readonly<Record<string, string>>): string {
  const parts: string[] = [];
  let at = 0;
  for (const token of sqlTokens(sql, dialect)) {
    if (token.kind !== 'placeholder') continue;
    const literal = literals[token.value.toLowerCase()];
    if (literal === undefined) continue;
    parts.push(sql.slice(at, token.start), literal);
    at = token.end;
  }
  parts.push(sql.slice(at));
  return parts.join('');
}

/** CompileIndicatorQuery's SQL: the stored SQL with the dialect's typed literals for the window. */
export function compileIndicatorSql(sql: string, window: QueryWindow, dialect: SqlDialect): string {
  return substitutePlaceholders(sql, dialect, placeholderLiterals(window, dialect));
}

/**
 * The dialect of a SQL connection's database, from its details (`sqldb.dialect`: postgresql, mysql
 * (MariaDB too) or bigquery); without one, port 3306 means MySQL and anything else PostgreSQL. An
 * unknown declared dialect is refused, never guessed.
 */
export function sqlDialectOf(connectionDetails: unknown): SqlDialect {
  const details = typeof connectionDetails === 'object' && connectionDetails !== null ? (connectionDetails as Record<string, unknown>) : {};
  const sqldb = typeof details.sqldb === 'object' && details.sqldb !== null ? (details.sqldb as Record<string, unknown>) : {};
  const declared = typeof sqldb.dialect === 'string' ? sqldb.dialect.toLowerCase() : undefined;
  if (declared === 'mariadb') return 'mysql';
  if (declared === 'postgres') return 'postgresql';
  if (declared && (SQL_DIALECTS as readonly string[]).includes(declared)) return declared as SqlDialect;
  if (declared !== undefined) throw invalid(`details.sqldb.dialect '${declared}' is not one of ${SQL_DIALECTS.join(', ')} (or mariadb, postgres)`);
  return Number(sqldb.port) === 3306 ? 'mysql' : 'postgresql';
}

const CLAUSE_END = new Set(['from', 'where', 'group', 'having', 'order', 'limit', 'window', 'qualify', 'union', 'except', 'intersect', 'into']);

/**
 * The output column names of the statement's first top-level SELECT when its text tells them for
 * sure (each item `expr AS name` or a bare column reference), else undefined (a star, an unnamed
 * expression): for where no engine plans the query (the operator configuration's v2 indicators).
 * Linear: one pass over the tokens.
 */
export function declaredOutputNames(sql: string, dialect: SqlDialect): string[] | undefined {
  const tokens = [...sqlTokens(sql, dialect)].filter((t) => t.kind !== 'space' && t.kind !== 'comment');
  let depth = 0;
  let start = -1;
  for (let i = 0; i < tokens.length && start < 0; i++) {
    const t = tokens[i];
    if (t.kind === 'punct' && t.value === '(') depth++;
    else if (t.kind === 'punct' && t.value === ')') depth--;
    else if (depth === 0 && t.kind === 'word' && t.value === 'select') start = i + 1;
  }
  if (start < 0) return undefined;
  while (start < tokens.length && tokens[start].kind === 'word' && (tokens[start].value === 'distinct' || tokens[start].value === 'all')) start++;
  const items: SqlToken[][] = [[]];
  depth = 0;
  for (let i = start; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.kind === 'punct' && t.value === '(') depth++;
    if (t.kind === 'punct' && t.value === ')') depth--;
    if (depth === 0 && ((t.kind === 'word' && CLAUSE_END.has(t.value)) || (t.kind === 'punct' && t.value === ';'))) break;
    if (depth === 0 && t.kind === 'punct' && t.value === ',') items.push([]);
    else items[items.length - 1].push(t);
  }
  const names: string[] = [];
  for (const item of items) {
    const last = item[item.length - 1];
    // PostgreSQL folds unquoted names to lowercase; MySQL and BigQuery keep them as written.
    const nameOf = (t: SqlToken) => (t.kind === 'quoted' ? t.value : dialect === 'postgresql' ? t.value : sql.slice(t.start, t.end));
    if (!last || (last.kind !== 'word' && last.kind !== 'quoted')) return undefined;
    if (item.length >= 3 && item[item.length - 2].kind === 'word' && item[item.length - 2].value === 'as') names.push(nameOf(last));
    else if (item.every((t, j) => (j % 2 === 0 ? t.kind === 'word' || t.kind === 'quoted' : t.kind === 'punct' && t.value === '.'))) names.push(nameOf(last));
    else return undefined;
  }
  return names;
}
