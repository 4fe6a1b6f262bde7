/**
 * An indicator's SQL, checked without running it (spec part 3, "CreateIndicator validation"): parsed
 * with node-sql-parser (BigQuery dialect, whose named parameters are the `@start_time` form), the
 * reserved placeholders found in the tree, and the statement planned against the empty tables of the
 * connections' declared schemas, which gives its output columns; those must be the kind's. Compiling
 * substitutes typed literals for the placeholders in the same tree. Linear in the size of the SQL.
 */
import { Parser } from 'node-sql-parser';
import { invalid } from '../shared/domain-error';
import { isPlainObject } from '../shared/json-path';

const DIALECT = { database: 'BigQuery' } as const;
export const PLACEHOLDERS = ['start_time', 'end_time', 'resolution'] as const;
export const KIND_COLUMNS: Record<string, readonly string[]> = {
  INDICATOR_KIND_RATIO: ['time', 'good_events', 'total_events'],
  INDICATOR_KIND_GAUGE: ['time', 'value'],
};

/** Declared tables of the connections a query reads: table name to its column names. */
export type DeclaredSchema = ReadonlyMap<string, readonly string[]>;

// node-sql-parser's tree is loosely typed: nodes are plain objects told apart by `type`.
type Node = Record<string, unknown>;
const parser = new Parser();

function parse(sql: string): Node {
  let ast: unknown;
  try {
    ast = parser.astify(sql, DIALECT);
  } catch (error) {
    throw invalid(`indicator.query.engine_sql does not parse: ${(error as Error).message.split('\n')[0]}`);
  }
  if (Array.isArray(ast)) {
    if (ast.length !== 1) throw invalid('indicator.query.engine_sql must be exactly one SELECT statement');
    ast = ast[0];
  }
  const root = ast as Node;
  if (root.type !== 'select') throw invalid('indicator.query.engine_sql must be a SELECT statement');
  return root;
}

/** Every node of the tree, depth first (an explicit stack: deep SQL must not overflow the call stack). */
function* nodes(root: unknown): Generator<Node> {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) stack.push(...value);
    else if (isPlainObject(value)) {
      yield value;
      for (const child of Object.values(value)) if (typeof child === 'object' && child !== null) stack.push(child);
    }
  }
}

const isParam = (node: Node) => node.type === 'param' && typeof node.value === 'string';

/** Name of a column reference (`ts`, or BigQuery's `{expr: {value: 'ts'}}` form). */
function columnName(ref: Node): string | undefined {
  const column = ref.column;
  if (typeof column === 'string') return column;
  if (isPlainObject(column) && isPlainObject(column.expr) && typeof column.expr.value === 'string') return column.expr.value;
  return undefined;
}

interface Scope {
  /** Visible tables (CTEs, subqueries, schema tables) by the name the statement uses. */
  tables: Map<string, readonly string[]>;
}

/**
 * Plans one SELECT: its FROM items resolve to declared tables, CTEs or subqueries, every column it
 * reads exists there (or is an output alias, as GROUP BY time allows), and its output columns are
 * named. Returns the output columns.
 */
function plan(select: Node, schema: DeclaredSchema, outer: ReadonlyMap<string, readonly string[]>): string[] {
  if (select.type !== 'select') throw invalid('indicator.query.engine_sql: only SELECT statements can be planned');
  const ctes = new Map(outer);
  for (const cte of (select.with as Node[] | null) ?? []) {
    const name = isPlainObject(cte.name) ? String(cte.name.value) : String(cte.name);
    const stmt = cte.stmt as Node;
    ctes.set(name, plan((stmt.ast ?? stmt) as Node, schema, ctes));
  }
  const scope: Scope = { tables: new Map() };
  for (const item of (select.from as Node[] | null) ?? []) {
    if (typeof item.table === 'string') {
      const qualified = item.db ? `${String(item.db)}.${item.table}` : item.table;
      const columns = ctes.get(qualified) ?? schema.get(qualified);
      if (!columns) throw invalid(`indicator.query.engine_sql reads table '${qualified}', which is not in the declared schema of its connections`);
      scope.tables.set(String(item.as ?? item.table), columns);
    } else if (isPlainObject(item.expr) && isPlainObject(item.expr.ast)) {
      scope.tables.set(String(item.as ?? `subquery${scope.tables.size}`), plan(item.expr.ast, schema, ctes));
    }
  }
  const available = new Set([...scope.tables.values()].flat());
  const output: string[] = [];
  const selected = select.columns === '*' ? [{ expr: { type: 'star' } }] : ((select.columns as Node[]) ?? []);
  selected.forEach((column, index) => {
    const expr = column.expr as Node;
    if (expr.type === 'star' || (expr.type === 'column_ref' && columnName(expr) === '*')) {
      const table = expr.table ? scope.tables.get(String(expr.table)) : undefined;
      output.push(...(table ?? [...available]));
      return;
    }
    const name = (typeof column.as === 'string' && column.as) || (expr.type === 'column_ref' ? columnName(expr) : undefined);
    if (!name) throw invalid(`output column ${index + 1} of indicator.query.engine_sql has no name; give it an alias (AS ...)`);
    output.push(name);
  });
  const aliases = new Set(output);
  // Sets built once per SELECT, so checking each column reference costs the same whatever the SQL's size.
  const outerColumns = new Set([...outer.values()].flat());
  const tableColumns = new Map<string, Set<string>>();
  const columnsOf = (table: string): Set<string> | undefined => {
    const columns = scope.tables.get(table) ?? outer.get(table);
    if (columns && !tableColumns.has(table)) tableColumns.set(table, new Set(columns));
    return tableColumns.get(table);
  };
  // Column references of this SELECT (subqueries are planned on their own, with this scope as outer).
  const stack: unknown[] = [select.columns, select.where, select.groupby, select.having, select.orderby];
  for (const item of (select.from as Node[] | null) ?? []) stack.push(item.on);
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) {
      stack.push(...value);
      continue;
    }
    if (!isPlainObject(value)) continue;
    if (isPlainObject(value.ast)) {
      plan(value.ast, schema, new Map([...ctes, ...scope.tables]));
      continue;
    }
    if (value.type === 'column_ref') {
      const name = columnName(value);
      if (name === undefined || name === '*') continue;
      const table = typeof value.table === 'string' ? value.table : undefined;
      const columns = table ? columnsOf(table) : undefined;
      if (table && !columns) throw invalid(`indicator.query.engine_sql refers to table '${table}', which its FROM does not name`);
      const known = columns ? columns.has(name) : available.has(name) || aliases.has(name) || outerColumns.has(name);
      if (!known) throw invalid(`indicator.query.engine_sql reads column '${table ? `${table}.` : ''}${name}', which the declared schema does not have`);
      continue;
    }
    for (const child of Object.values(value)) if (typeof child === 'object' && child !== null) stack.push(child);
  }
  // The other arms of a UNION see the same CTEs; the first arm names the output.
  if (isPlainObject(select._next)) plan(select._next, schema, ctes);
  return output;
}

/**
 * Checks an indicator's SQL for its kind: the three placeholders referenced (and no other), the
 * statement planned against the declared schema, and the planned output columns exactly the kind's.
 */
export function checkIndicatorSql(sql: string, kind: string, schema: DeclaredSchema): void {
  const root = parse(sql);
  const found = new Set<string>();
  for (const node of nodes(root)) if (isParam(node)) found.add(node.value as string);
  const missing = PLACEHOLDERS.filter((p) => !found.has(p));
  if (missing.length > 0) throw invalid(`indicator.query.engine_sql must reference ${missing.map((p) => `@${p}`).join(', ')}`);
  const unknown = [...found].filter((p) => !(PLACEHOLDERS as readonly string[]).includes(p));
  if (unknown.length > 0) throw invalid(`indicator.query.engine_sql uses unknown placeholder ${unknown.map((p) => `@${p}`).join(', ')}; only @start_time, @end_time and @resolution exist`);
  const output = plan(root, schema, new Map());
  const expected = KIND_COLUMNS[kind];
  const absent = expected.filter((c) => !output.includes(c));
  const extra = output.filter((c) => !expected.includes(c));
  if (absent.length > 0 || extra.length > 0) {
    const parts = [absent.length > 0 ? `lacks column ${absent.join(', ')}` : '', extra.length > 0 ? `has unexpected column ${extra.join(', ')}` : ''].filter(Boolean);
    throw invalid(`indicator.query.engine_sql ${parts.join(' and ')}: ${kind} needs exactly ${expected.join(', ')} (planned output: ${output.join(', ') || 'none'})`);
  }
}

/** A window's values for the placeholders. `resolution` in seconds. */
export interface QueryWindow {
  startTime: string;
  endTime: string;
  resolutionSeconds: number;
}

/** The SQL with typed literals for the placeholders (TIMESTAMP '...', INTERVAL n SECOND or MILLISECOND). */
export function compileIndicatorSql(sql: string, window: QueryWindow): string {
  const root = parse(sql);
  const wholeSeconds = Number.isInteger(window.resolutionSeconds);
  for (const node of nodes(root)) {
    if (!isParam(node)) continue;
    const name = node.value as string;
    delete node.prefix;
    if (name === 'start_time' || name === 'end_time') {
      node.type = 'timestamp';
      node.value = name === 'start_time' ? window.startTime : window.endTime;
    } else if (name === 'resolution') {
      node.type = 'interval';
      delete node.value;
      node.expr = { type: 'number', value: wholeSeconds ? window.resolutionSeconds : Math.round(window.resolutionSeconds * 1000) };
      node.unit = wholeSeconds ? 'second' : 'millisecond';
    }
  }
  return parser.sqlify(root as never, DIALECT);
}
