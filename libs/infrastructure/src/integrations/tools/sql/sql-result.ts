/**
 * A SQL result as the model sees it: column names and rows of JSON values, cut at the row cap and
 * at the byte cap, with `truncated` saying which cap cut it and how much is shown. Sizes are measured
 * once per row, so the cut is linear in what was fetched.
 */

export interface SqlRows {
  columns: string[];
  rows: unknown[][];
  /** The database had more rows than were fetched (the fetch stops one past the row cap). */
  more: boolean;
}

export interface Truncation {
  /** Which cap cut the result. */
  by: 'rows' | 'bytes';
  /** Rows shown. */
  shown: number;
  message: string;
}

export interface QueryResult extends Record<string, unknown> {
  columns: string[];
  rows: unknown[][];
  rowCount: number;
  truncated?: Truncation;
}

/** Longest string cell kept whole; a longer one is cut and ends with `…`. */
export const MAX_CELL_CHARS = 4096;

/** A cell as JSON: dates as RFC 3339, 64-bit integers as strings, binary as `\x` hex, long text cut. */
export function jsonCell(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? String(value) : value.toISOString();
  if (Buffer.isBuffer(value)) return cut(`\\x${value.subarray(0, MAX_CELL_CHARS / 2).toString('hex')}`, value.length * 2 + 2);
  if (typeof value === 'string') return cut(value, value.length);
  if (typeof value === 'object') {
    const json = JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? 'null';
    return cut(json, json.length);
  }
  return value;
}

function cut(text: string, length: number): string {
  return length > MAX_CELL_CHARS || text.length > MAX_CELL_CHARS ? `${text.slice(0, MAX_CELL_CHARS)}…` : text;
}

/**
 * The rows within `maxRows` and, serialized with the columns, within `maxBytes`. When a cap cuts,
 * `truncated` names it; `rowCount` is the number of rows shown.
 */
export function capRows(result: SqlRows, maxRows: number, maxBytes: number): QueryResult {
  let rows = result.rows.map((row) => row.map(jsonCell));
  let truncated: Truncation | undefined;
  if (rows.length > maxRows || result.more) {
    rows = rows.slice(0, maxRows);
    truncated = { by: 'rows', shown: rows.length, message: `more than ${maxRows} rows: only the first ${maxRows} are shown (add a LIMIT or aggregate)` };
  }
  // The envelope without rows, plus room for the truncation note; then each row and its comma.
  let bytes = Buffer.byteLength(JSON.stringify({ columns: result.columns, rows: [], rowCount: rows.length })) + 200;
  let fit = 0;
  for (const row of rows) {
    const size = Buffer.byteLength(JSON.stringify(row)) + 1;
    if (bytes + size > maxBytes) break;
    bytes += size;
    fit++;
  }
  if (fit < rows.length) {
    rows = rows.slice(0, fit);
    truncated = { by: 'bytes', shown: fit, message: `the result is larger than ${maxBytes} bytes: only the first ${fit} rows are shown (select fewer columns or rows)` };
  }
  return { columns: result.columns, rows, rowCount: rows.length, ...(truncated ? { truncated } : {}) };
}
