/**
 * The output-column contract of an indicator kind (spec part 3, "Indicator": RATIO gives `time`,
 * `good_events`, `total_events`; GAUGE gives `time`, `value`), checked over the columns a real engine
 * planned for the query (names and the engine's type names, DuckDB's spelling). `time` must be a
 * timestamp or a date; the value columns numbers. Each error names the column and what was expected.
 */
import { DomainError, invalid } from '../shared/domain-error';

export const KIND_COLUMNS: Record<string, readonly string[]> = {
  INDICATOR_KIND_RATIO: ['time', 'good_events', 'total_events'],
  INDICATOR_KIND_GAUGE: ['time', 'value'],
};

export interface PlannedColumn {
  name: string;
  /** The planning engine's type name, e.g. `TIMESTAMP WITH TIME ZONE`, `BIGINT`, `DECIMAL(18,3)`. */
  type: string;
}

/** What the command path planned, carried to the decider so that it stays pure. */
export interface IndicatorPlan {
  /** The SQL and connections the plan is for: a plan of other SQL proves nothing. */
  engineSql: string;
  connections: readonly string[];
  columns: readonly PlannedColumn[];
}

const TIME_TYPES = /^(DATE|TIMESTAMP(_S|_MS|_NS)?|TIMESTAMP WITH TIME ZONE)$/;
const NUMERIC_TYPES = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|DOUBLE|DECIMAL\(\d+,\s*\d+\))$/;

/** Whether `type` (the engine's name) is a timestamp or a date. */
export const isTimeType = (type: string) => TIME_TYPES.test(type.toUpperCase());
/** Whether `type` (the engine's name) is a number. */
export const isNumericType = (type: string) => NUMERIC_TYPES.test(type.toUpperCase());

/** The kind's names exactly, each once. */
export function checkOutputNames(kind: string, names: readonly string[]): void {
  const expected = KIND_COLUMNS[kind];
  if (!expected) throw invalid(`indicator.kind is required: one of ${Object.keys(KIND_COLUMNS).join(', ')}`);
  const absent = expected.filter((c) => !names.includes(c));
  const extra = names.filter((c) => !expected.includes(c));
  if (absent.length > 0 || extra.length > 0) {
    const parts = [absent.length > 0 ? `lacks column ${absent.join(', ')}` : '', extra.length > 0 ? `has unexpected column ${extra.join(', ')}` : ''].filter(Boolean);
    throw invalid(`indicator.query.engine_sql ${parts.join(' and ')}: ${kind} needs exactly ${expected.join(', ')} (planned output: ${names.join(', ') || 'none'})`);
  }
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) throw invalid(`indicator.query.engine_sql has column ${twice} twice: ${kind} needs exactly ${expected.join(', ')}`);
}

/** The kind's names exactly (each once), `time` a timestamp or date, the others numbers. */
export function checkPlannedColumns(kind: string, columns: readonly PlannedColumn[]): void {
  checkOutputNames(kind, columns.map((c) => c.name));
  for (const column of columns) {
    if (column.name === 'time' && !isTimeType(column.type)) {
      throw invalid(`indicator.query.engine_sql column 'time' is ${column.type}: ${kind} needs a timestamp or a date there`);
    }
    if (column.name !== 'time' && !isNumericType(column.type)) {
      throw invalid(`indicator.query.engine_sql column '${column.name}' is ${column.type}: ${kind} needs a number there`);
    }
  }
}

/**
 * The decider's half of planning: the plan must be of the SQL and connections being stored (a plan of
 * an older version, read before a concurrent update, is refused as ABORTED so the client retries),
 * and its columns must meet the kind's contract.
 */
export function checkIndicatorPlan(kind: string, engineSql: string, connections: readonly string[], plan: IndicatorPlan): void {
  const same = plan.engineSql === engineSql && plan.connections.length === connections.length && plan.connections.every((c, i) => c === connections[i]);
  if (!same) throw new DomainError('ABORTED', 'the indicator query changed while it was being planned; retry the request');
  checkPlannedColumns(kind, plan.columns);
}
