import type { Actor } from '../shared/decider';
import { MAX_COLUMNS, MAX_ROWS, rowsDecider } from './rows.decider';

const actor: Actor = { org: 'acme', actor: 'users/alice', subject: 'users/alice', permissions: [], now: '2024-01-01T00:00:00Z' };
const ingest = (table: unknown, rows: unknown) => () => rowsDecider.decide({ type: 'IngestRows', actor, table, rows }, rowsDecider.initialState());

describe('row ingestion', () => {
  it('records the rows of a table with the ingestion time, column names as given', () => {
    expect(ingest('orders', [{ order_id: 1, status: 'failed', paid: false, note: null }])()).toEqual([
      { type: 'RowsIngested', data: { table: 'orders', rows: [{ order_id: 1, status: 'failed', paid: false, note: null }], ingestTime: '2024-01-01T00:00:00Z' } },
    ]);
  });

  it.each([
    ['bad table', '1orders', [{ a: 1 }], /table must be a table name/],
    ['no rows', 'orders', [], /at least one row/],
    ['too many rows', 'orders', Array.from({ length: MAX_ROWS + 1 }, () => ({ a: 1 })), /at most 1000 per request/],
    ['a row that is no object', 'orders', [{ a: 1 }, [1]], /rows\[1\] must be an object/],
    ['too many columns', 'orders', [Object.fromEntries(Array.from({ length: MAX_COLUMNS + 1 }, (_, i) => [`c${i}`, i]))], /at most 100/],
    ['a nested value', 'orders', [{ a: { b: 1 } }], /rows\[0\]\.a must be a string, number, boolean or null/],
    ['a bad column name', 'orders', [{ 'a-b': 1 }], /column 'a-b'/],
  ])('refuses %s, naming it', (_case, table, rows, message) => {
    expect(ingest(table, rows)).toThrow(message);
  });
});
