import { existsSync, readFileSync } from 'fs';
import { resolve } from 'path';
import { SPEC_METHODS, SPEC_SERVICES, specMethodKey, specRoutes } from './catalog';

const ROOT = resolve(__dirname, '../../..');
const COVERAGE = resolve(ROOT, 'docs/api-coverage.md');
const STATUSES = ['done', 'partial', 'not started'];

interface Row {
  line: number;
  part: number | undefined;
  key: string;
  routes: string;
  status: string;
  provingTest: string;
}

/** Table rows of docs/api-coverage.md whose first cell is backticked, with the spec part of the enclosing section. */
function coverageRows(): Row[] {
  const rows: Row[] = [];
  let part: number | undefined;
  readFileSync(COVERAGE, 'utf8')
    .split(/\r?\n/)
    .forEach((text, i) => {
      const heading = /^#{1,6}\s.*\bPart\s+(\d)\b/i.exec(text);
      if (heading) part = Number(heading[1]);
      if (!/^\|\s*`/.test(text)) return;
      const cells = text
        .trim()
        .replace(/^\||\|$/g, '')
        .split(/(?<!\\)\|/)
        .map((c) => c.trim());
      rows.push({
        line: i + 1,
        part,
        key: cells[0].replace(/^`|`$/g, ''),
        routes: cells[1] ?? '',
        status: cells[2] ?? '',
        provingTest: cells[3] ?? '',
      });
    });
  return rows;
}

/** The file named by a proving-test cell: `path` or `path › test name`, backticks optional. */
function provingTestFile(cell: string): string {
  return cell.replace(/`/g, '').split('›')[0].trim();
}

describe('spec method catalog', () => {
  it('has no duplicate service/method pairs', () => {
    const keys = SPEC_METHODS.map(specMethodKey);
    const dupes = keys.filter((k, i) => keys.indexOf(k) !== i);
    expect(dupes).toEqual([]);
  });

  it('uses well-formed areas, services and routes', () => {
    for (const m of SPEC_METHODS) {
      expect({ key: specMethodKey(m), area: /^[a-z0-9]+$/.test(m.area) }).toEqual({ key: specMethodKey(m), area: true });
      expect(m.service).toMatch(/^svc\.[a-z0-9_]+\.v\d+\.[A-Z][A-Za-z0-9]*Service$/);
      expect(m.method).toMatch(/^[A-Z][A-Za-z0-9]*$/);
      for (const r of m.rest ?? []) expect(r).toMatch(/^(GET|POST|PUT|PATCH|DELETE) \/v\d\/\S+$/);
    }
    expect([...SPEC_SERVICES]).toEqual(expect.arrayContaining(['svc.rbac.v1.RolesService', 'svc.notes.v1.NotesService']));
  });

  it('lists the methods of each part in spec order (parts ascending)', () => {
    const parts = SPEC_METHODS.map((m) => m.part);
    expect(parts).toEqual([...parts].sort());
  });
});

describe('docs/api-coverage.md', () => {
  const rows = coverageRows();

  it('has exactly one row per SPEC_METHODS entry, in the same order, and no extra rows', () => {
    const keys = SPEC_METHODS.map(specMethodKey);
    const rowKeys = rows.map((r) => r.key);
    expect(rowKeys.filter((k) => !keys.includes(k))).toEqual([]); // extra rows
    expect(keys.filter((k) => !rowKeys.includes(k))).toEqual([]); // missing rows
    expect(rowKeys.filter((k, i) => rowKeys.indexOf(k) !== i)).toEqual([]); // duplicate rows
    expect(rowKeys).toEqual(keys); // order
  });

  it('puts each row in the table of its spec part and shows its routes', () => {
    const byKey = new Map(SPEC_METHODS.map((m) => [specMethodKey(m), m]));
    for (const row of rows) {
      const m = byKey.get(row.key);
      if (!m) continue; // reported by the previous test
      const routes = specRoutes(m);
      const expected = routes.length ? routes.map((r) => `\`${r}\``).join('<br>') : 'not shown';
      expect({ key: row.key, part: row.part, routes: row.routes }).toEqual({ key: row.key, part: m.part, routes: expected });
    }
  });

  it('gives every row a valid status, and every done/partial row an existing proving test file', () => {
    const badStatus = rows.filter((r) => !STATUSES.includes(r.status)).map((r) => `line ${r.line}: ${r.key}: "${r.status}"`);
    expect(badStatus).toEqual([]);
    const missingTests = rows
      .filter((r) => r.status === 'done' || r.status === 'partial')
      .map((r) => ({ row: r, file: provingTestFile(r.provingTest) }))
      .filter(({ file }) => !/\.ts$/.test(file) || !existsSync(resolve(ROOT, file)))
      .map(({ row, file }) => `line ${row.line}: ${row.key}: proving test file "${file}" does not exist`);
    expect(missingTests).toEqual([]);
  });
});
