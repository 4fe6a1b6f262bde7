/**
 * A database's column types as the indicator planner's engine (DuckDB) spells them. PostgreSQL's,
 * MySQL's and BigQuery's names (as information_schema gives them, or as an operator declares them)
 * map to the DuckDB type that behaves the same in a query; a type with no counterpart (PostgreSQL
 * enums, ranges, geometry, `USER-DEFINED`) is planned as VARCHAR, which is what a query can still do
 * with it (compare, group, count). See docs/decisions.md, "Indicators planned against the live schema".
 */
import type { SqlDialect } from '@svc/domain/indicators/indicator-sql';

const EXACT: Record<string, string> = {
  // Integers
  smallint: 'SMALLINT', int2: 'SMALLINT', smallserial: 'SMALLINT', tinyint: 'TINYINT', mediumint: 'INTEGER', year: 'INTEGER',
  integer: 'INTEGER', int: 'INTEGER', int4: 'INTEGER', serial: 'INTEGER', serial4: 'INTEGER',
  bigint: 'BIGINT', int8: 'BIGINT', bigserial: 'BIGINT', serial8: 'BIGINT', int64: 'BIGINT', oid: 'BIGINT', bit: 'BIGINT',
  // Floats and exact numbers
  real: 'FLOAT', float4: 'FLOAT', float: 'FLOAT',
  'double precision': 'DOUBLE', double: 'DOUBLE', float8: 'DOUBLE', float64: 'DOUBLE', bignumeric: 'DOUBLE', bigdecimal: 'DOUBLE',
  money: 'DECIMAL(18,2)',
  // Truth
  boolean: 'BOOLEAN', bool: 'BOOLEAN',
  // Text
  text: 'VARCHAR', varchar: 'VARCHAR', 'character varying': 'VARCHAR', character: 'VARCHAR', char: 'VARCHAR', bpchar: 'VARCHAR', name: 'VARCHAR',
  citext: 'VARCHAR', string: 'VARCHAR', tinytext: 'VARCHAR', mediumtext: 'VARCHAR', longtext: 'VARCHAR', enum: 'VARCHAR', set: 'VARCHAR',
  inet: 'VARCHAR', cidr: 'VARCHAR', macaddr: 'VARCHAR', xml: 'VARCHAR',
  uuid: 'UUID',
  json: 'JSON', jsonb: 'JSON',
  // Bytes
  bytea: 'BLOB', blob: 'BLOB', tinyblob: 'BLOB', mediumblob: 'BLOB', longblob: 'BLOB', binary: 'BLOB', varbinary: 'BLOB', bytes: 'BLOB',
  // Time
  date: 'DATE',
  'timestamp without time zone': 'TIMESTAMP', datetime: 'TIMESTAMP',
  'timestamp with time zone': 'TIMESTAMPTZ', timestamptz: 'TIMESTAMPTZ',
  time: 'TIME', 'time without time zone': 'TIME', 'time with time zone': 'TIMETZ', timetz: 'TIMETZ',
  interval: 'INTERVAL',
};

export interface MappedType {
  /** DuckDB's type. */
  type: string;
  /** False when the database's type has no counterpart and is planned as VARCHAR. */
  known: boolean;
}

/**
 * DuckDB's type for a database's type name: `varchar(255)` is VARCHAR, `numeric(10,2)` DECIMAL(10,2),
 * `integer[]` / `_int4` / `ARRAY<INT64>` lists. `timestamp` is TIMESTAMPTZ in BigQuery (an instant)
 * and TIMESTAMP elsewhere; `tinyint(1)` stays TINYINT (MySQL's BOOL sums as a number, as there).
 */
export function duckdbType(databaseType: string, dialect: SqlDialect): MappedType {
  const raw = databaseType.trim().toLowerCase().replace(/\s+/g, ' ');
  const unsigned = /\bunsigned\b/.test(raw);
  const bare = raw.replace(/\b(unsigned|zerofill|signed)\b/g, '').trim();
  if (bare.endsWith('[]')) return list(duckdbType(bare.slice(0, -2), dialect));
  if (/^_[a-z0-9]+$/.test(bare)) return list(duckdbType(bare.slice(1), dialect));
  const array = /^array<(.+)>$/.exec(bare);
  if (array) return list(duckdbType(array[1], dialect));
  const args = /^([a-z ]+?)\s*\(([^)]*)\)(.*)$/.exec(bare);
  const base = (args ? `${args[1]}${args[3]}` : bare).trim();
  if (base === 'numeric' || base === 'decimal' || base === 'dec' || base === 'fixed') return { type: decimal(args?.[2]), known: true };
  if (base === 'timestamp') return { type: dialect === 'bigquery' ? 'TIMESTAMPTZ' : 'TIMESTAMP', known: true };
  if (base === 'timestamp with time zone' || base === 'timestamp without time zone' || base === 'time with time zone' || base === 'time without time zone') {
    return { type: EXACT[base], known: true };
  }
  const exact = EXACT[base];
  if (exact === undefined) return { type: 'VARCHAR', known: false };
  if (unsigned && /^(TINYINT|SMALLINT|INTEGER|BIGINT)$/.test(exact)) return { type: `U${exact}`, known: true };
  return { type: exact, known: true };
}

function list(element: MappedType): MappedType {
  return { type: `${element.type}[]`, known: element.known };
}

/** DECIMAL(p,s) within DuckDB's 38 digits; an unbounded NUMERIC plans as DOUBLE (a number all the same). */
function decimal(args: string | undefined): string {
  const [p, s] = (args ?? '').split(',').map((x) => Number.parseInt(x.trim(), 10));
  if (!Number.isInteger(p) || p < 1 || p > 38) return 'DOUBLE';
  const scale = Number.isInteger(s) && s >= 0 && s <= p ? s : 0;
  return `DECIMAL(${p},${scale})`;
}
