/**
 * Row ingestion rules (docs/operations.md, "Limits"): a table name as row triggers name tables, at
 * most MAX_ROWS rows of at most MAX_COLUMNS columns, each value a string, number, boolean or null.
 * Every check runs before anything is appended, and names the row and column at fault.
 */
import { ROWS_INGESTED, type RowsIngestedEvent, type RowValue } from '@svc/contracts/rows/rows.contract';
import type { Actor, Decider } from '../shared/decider';
import { invalid } from '../shared/domain-error';
import { isPlainObject } from '../shared/json-path';

export const MAX_ROWS = 1000;
export const MAX_COLUMNS = 100;
export const MAX_ROW_STRING = 8192;
/** As row triggers name tables (libs/domain/src/triggers/configuration.ts). */
const TABLE = /^[A-Za-z_][A-Za-z0-9_.]{0,127}$/;
const COLUMN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export interface IngestRows {
  type: 'IngestRows';
  actor: Actor;
  table: unknown;
  rows: unknown;
}

/** The rows, checked; INVALID_ARGUMENT naming the first fault. Linear in the input. */
export function checkRows(table: unknown, rows: unknown): { table: string; rows: Array<Record<string, RowValue>> } {
  if (typeof table !== 'string' || !TABLE.test(table)) {
    throw invalid(`table must be a table name (letters, digits, underscores, dots; a letter or underscore first; at most 128), got '${String(table ?? '')}'`);
  }
  if (!Array.isArray(rows) || rows.length === 0) throw invalid('rows must list at least one row');
  if (rows.length > MAX_ROWS) throw invalid(`rows lists ${rows.length} rows; at most ${MAX_ROWS} per request`);
  const checked = rows.map((row, i) => {
    if (!isPlainObject(row)) throw invalid(`rows[${i}] must be an object of column values`);
    const columns = Object.keys(row);
    if (columns.length > MAX_COLUMNS) throw invalid(`rows[${i}] has ${columns.length} columns; at most ${MAX_COLUMNS}`);
    const out: Record<string, RowValue> = {};
    for (const column of columns) {
      if (!COLUMN.test(column)) throw invalid(`rows[${i}]: column '${column.slice(0, 80)}' must be a letter or underscore, then letters, digits or underscores (at most 64)`);
      const value = row[column];
      if (typeof value === 'string' && value.length > MAX_ROW_STRING) throw invalid(`rows[${i}].${column} is longer than ${MAX_ROW_STRING} characters`);
      if (typeof value === 'number' && !Number.isFinite(value)) throw invalid(`rows[${i}].${column} must be a finite number`);
      if (value !== null && !['string', 'number', 'boolean'].includes(typeof value)) {
        throw invalid(`rows[${i}].${column} must be a string, number, boolean or null`);
      }
      out[column] = value as RowValue;
    }
    return out;
  });
  return { table, rows: checked };
}

export const rowsDecider: Decider<{ ingested: boolean }, IngestRows, RowsIngestedEvent> = {
  initialState: () => ({ ingested: false }),
  evolve: () => ({ ingested: true }),
  decide(command, state) {
    const { table, rows } = checkRows(command.table, command.rows);
    // One stream per request: a second append to it is the same request again (request_id).
    if (state.ingested) return [];
    return [{ type: ROWS_INGESTED, data: { table, rows, ingestTime: command.actor.now } }];
  },
};
