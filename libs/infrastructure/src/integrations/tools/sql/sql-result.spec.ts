import { capRows, jsonCell, MAX_CELL_CHARS } from './sql-result';

describe('SQL results within the caps (what the model is shown, and what was cut)', () => {
  const rows = (n: number, width = 1) => Array.from({ length: n }, (_, i) => [i, 'x'.repeat(width)]);

  it('given a result within both caps, when capped, then every row is shown and nothing says truncated', () => {
    expect(capRows({ columns: ['id', 'v'], rows: rows(3), more: false }, 10, 10_000)).toEqual({ columns: ['id', 'v'], rows: rows(3), rowCount: 3 });
  });

  it('given more rows than the row cap, when capped, then the first rows are shown and truncated says the row cap cut it', () => {
    const capped = capRows({ columns: ['id', 'v'], rows: rows(5), more: true }, 5, 10_000);
    expect(capped.rowCount).toBe(5);
    expect(capped.truncated).toEqual({ by: 'rows', shown: 5, message: expect.stringContaining('more than 5 rows') });
    expect(capRows({ columns: ['id', 'v'], rows: rows(8), more: false }, 5, 10_000).rows).toEqual(rows(5));
  });

  it('given rows past the byte cap, when capped, then whole rows are dropped from the end until the JSON fits, and truncated says the byte cap cut it', () => {
    const capped = capRows({ columns: ['id', 'v'], rows: rows(100, 100), more: false }, 1000, 2_000);
    expect(Buffer.byteLength(JSON.stringify(capped))).toBeLessThanOrEqual(2_000);
    expect(capped.rowCount).toBeGreaterThan(5);
    expect(capped.rowCount).toBeLessThan(20);
    expect(capped.truncated).toEqual({ by: 'bytes', shown: capped.rowCount, message: expect.stringContaining('larger than 2000 bytes') });
  });

  it('given database values, when shown, then they are JSON: 64-bit integers as text, dates in RFC 3339, binary as hex, long text cut', () => {
    expect(jsonCell(2n ** 63n - 1n)).toBe('9223372036854775807');
    expect(jsonCell(new Date('2026-01-02T03:04:05Z'))).toBe('2026-01-02T03:04:05.000Z');
    expect(jsonCell(Buffer.from([0xde, 0xad]))).toBe('\\xdead');
    expect(jsonCell({ a: [1, 2n] })).toBe('{"a":[1,"2"]}');
    expect(jsonCell(undefined)).toBeNull();
    const long = jsonCell('y'.repeat(MAX_CELL_CHARS + 10)) as string;
    expect(long).toHaveLength(MAX_CELL_CHARS + 1);
    expect(long.endsWith('…')).toBe(true);
  });
});
