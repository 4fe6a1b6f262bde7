/**
 * Row trigger predicates: a boolean SQL-style expression over a row's columns and literals, parsed
 * by node-sql-parser as the WHERE clause of `SELECT * FROM t WHERE <predicate>` and checked to use
 * only columns, literals, comparisons, arithmetic and AND / OR / NOT. `rowMatches` evaluates the
 * checked tree against an ingested row (the row reactor's match).
 */
import { Parser } from 'node-sql-parser';
import { invalid } from '../shared/domain-error';
import { isPlainObject, type JsonObject } from '../shared/json-path';

/** Longest predicate accepted (ours; docs/operations.md, "Limits"): bounds the parse and the tree's depth. */
export const MAX_PREDICATE_LENGTH = 2000;

/** The checked tree: node-sql-parser's expression nodes, narrowed to the kinds below. */
export type PredicateNode = JsonObject & { type: string };

const LOGICAL = new Set(['AND', 'OR']);
const COMPARISON = new Set(['=', '!=', '<>', '<', '<=', '>', '>=', 'LIKE', 'NOT LIKE', 'IN', 'NOT IN', 'IS', 'IS NOT', 'BETWEEN', 'NOT BETWEEN']);
const ARITHMETIC = new Set(['+', '-', '*', '/', '%']);
const LITERALS = new Set(['number', 'single_quote_string', 'double_quote_string', 'string', 'bool', 'boolean', 'null']);

const parser = new Parser();

/** The predicate's checked tree; INVALID_ARGUMENT naming `field` when it is not a boolean expression over columns and literals. */
export function parseRowPredicate(predicate: unknown, field = 'predicate'): PredicateNode {
  if (typeof predicate !== 'string' || predicate.trim() === '') throw invalid(`${field} is required: a boolean SQL expression such as "status = 'failed'"`);
  if (predicate.length > MAX_PREDICATE_LENGTH) throw invalid(`${field} is longer than ${MAX_PREDICATE_LENGTH} characters`);
  let ast: unknown;
  try {
    ast = parser.astify(`SELECT * FROM t WHERE ${predicate}`);
  } catch (error) {
    throw invalid(`${field} is not a valid SQL expression: ${(error as Error).message.split('\n')[0].slice(0, 200)}`);
  }
  // `a = 1; DROP TABLE t` parses as two statements; anything beyond the WHERE clause is refused too.
  const select = Array.isArray(ast) ? (ast.length === 1 ? ast[0] : undefined) : ast;
  if (!isPlainObject(select) || !isPlainObject(select.where) || select.groupby || select.having || select.orderby || select.limit) {
    throw invalid(`${field} must be a single boolean expression (the WHERE clause of one SELECT)`);
  }
  const where = select.where as PredicateNode;
  checkBoolean(where, field);
  return where;
}

function describe(node: JsonObject): string {
  return typeof node.operator === 'string' ? `operator ${node.operator}` : String(node.type);
}

/** A node in a boolean position: a comparison, AND / OR / NOT, a boolean literal or a (boolean) column. */
function checkBoolean(node: JsonObject, field: string): void {
  if (node.type === 'binary_expr' && LOGICAL.has(String(node.operator))) {
    checkBoolean(node.left as JsonObject, field);
    checkBoolean(node.right as JsonObject, field);
  } else if (node.type === 'unary_expr' && node.operator === 'NOT') {
    checkBoolean(node.expr as JsonObject, field);
  } else if (node.type === 'binary_expr' && COMPARISON.has(String(node.operator))) {
    checkValue(node.left as JsonObject, field);
    const right = node.right as JsonObject;
    if (right.type === 'expr_list' && Array.isArray(right.value)) for (const item of right.value) checkValue(item as JsonObject, field);
    else checkValue(right, field);
  } else if (node.type === 'column_ref' || node.type === 'bool' || node.type === 'boolean') {
    checkValue(node, field);
  } else {
    throw invalid(`${field} must be a boolean expression; found ${describe(node)} where a condition belongs`);
  }
}

/** A node in a value position: a column, a literal, or arithmetic over them. */
function checkValue(node: JsonObject, field: string): void {
  if (!isPlainObject(node)) throw invalid(`${field}: unsupported expression`);
  if (node.type === 'column_ref') {
    if (typeof node.column !== 'string' || (node.table !== null && node.table !== undefined)) {
      throw invalid(`${field}: columns are plain names of the row's columns`);
    }
    return;
  }
  if (LITERALS.has(String(node.type))) return;
  if (node.type === 'binary_expr' && ARITHMETIC.has(String(node.operator))) {
    checkValue(node.left as JsonObject, field);
    checkValue(node.right as JsonObject, field);
    return;
  }
  if (node.type === 'unary_expr' && node.operator === '-') return checkValue(node.expr as JsonObject, field);
  throw invalid(`${field} may use only columns, literals, comparisons, arithmetic and AND / OR / NOT; found ${describe(node)}`);
}

type Scalar = string | number | boolean | null;

function value(node: JsonObject, row: JsonObject): Scalar {
  switch (node.type) {
    case 'column_ref': {
      const v = Object.hasOwn(row, String(node.column)) ? row[String(node.column)] : null;
      return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : null;
    }
    case 'null':
      return null;
    case 'unary_expr': {
      const v = value(node.expr as JsonObject, row);
      return typeof v === 'number' ? -v : null;
    }
    case 'binary_expr': {
      const [l, r] = [value(node.left as JsonObject, row), value(node.right as JsonObject, row)];
      if (typeof l !== 'number' || typeof r !== 'number') return null;
      switch (node.operator) {
        case '+': return l + r;
        case '-': return l - r;
        case '*': return l * r;
        case '/': return r === 0 ? null : l / r;
        default: return r === 0 ? null : l % r;
      }
    }
    default:
      return node.value as Scalar;
  }
}

function compare(a: Scalar, b: Scalar): number | null {
  if (a === null || b === null) return null;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const [x, y] = [String(a), String(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** SQL LIKE (`%` any run, `_` one character), matched in O(text × pattern) without regular expressions. */
function like(text: string, pattern: string): boolean {
  let row = new Array<boolean>(text.length + 1).fill(false);
  row[0] = true;
  for (const p of pattern) {
    const next = new Array<boolean>(text.length + 1).fill(false);
    if (p === '%') {
      let seen = false;
      for (let i = 0; i <= text.length; i++) next[i] = seen = seen || row[i];
    } else {
      for (let i = 1; i <= text.length; i++) next[i] = row[i - 1] && (p === '_' || p === text[i - 1]);
    }
    row = next;
  }
  return row[text.length];
}

/** Whether the row satisfies a tree from parseRowPredicate; a comparison with NULL is false (SQL's unknown). */
export function rowMatches(node: PredicateNode, row: JsonObject): boolean {
  const op = String(node.operator ?? '');
  if (node.type === 'unary_expr') return !rowMatches(node.expr as PredicateNode, row);
  if (node.type !== 'binary_expr') return value(node, row) === true;
  if (op === 'AND') return rowMatches(node.left as PredicateNode, row) && rowMatches(node.right as PredicateNode, row);
  if (op === 'OR') return rowMatches(node.left as PredicateNode, row) || rowMatches(node.right as PredicateNode, row);
  const left = value(node.left as JsonObject, row);
  const right = node.right as JsonObject;
  const items = right.type === 'expr_list' && Array.isArray(right.value) ? (right.value as JsonObject[]).map((n) => value(n, row)) : [];
  switch (op) {
    case 'IS': return left === value(right, row);
    case 'IS NOT': return left !== value(right, row);
    case 'IN': return items.some((item) => compare(left, item) === 0);
    case 'NOT IN': return left !== null && items.every((item) => compare(left, item) !== 0 && item !== null);
    case 'BETWEEN':
    case 'NOT BETWEEN': {
      const [low, high] = [compare(left, items[0] ?? null), compare(left, items[1] ?? null)];
      if (low === null || high === null) return false;
      return (low >= 0 && high <= 0) === (op === 'BETWEEN');
    }
    case 'LIKE':
    case 'NOT LIKE': {
      const pattern = value(right, row);
      if (left === null || pattern === null) return false;
      return like(String(left), String(pattern)) === (op === 'LIKE');
    }
  }
  const order = compare(left, value(right, row));
  if (order === null) return false;
  switch (op) {
    case '=': return order === 0;
    case '!=':
    case '<>': return order !== 0;
    case '<': return order < 0;
    case '<=': return order <= 0;
    case '>': return order > 0;
    default: return order >= 0;
  }
}
