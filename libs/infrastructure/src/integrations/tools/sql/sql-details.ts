/**
 * A sqldb connection's details (`connection_details.sqldb`), read for a driver: host, port,
 * database, username, password, ssl_mode, and which engine speaks there. The engine is `driver`
 * (`postgres` or `mysql`; `engine` and `dialect` are read as synonyms, and `postgresql`, `pg`,
 * `mariadb` as their values); without one, port 3306 means MySQL/MariaDB and anything else
 * PostgreSQL (docs/decisions.md, "Tool executor (issue 20)").
 */
import { ToolError } from '../tool-adapter.port';
import type { SqlDialect } from './sql-statement';

export interface SqlTarget {
  driver: SqlDialect;
  host: string;
  port: number;
  database: string;
  user: string;
  password?: string;
  /** `disable` (the default), `require` (encrypted, certificate not checked), `verify-ca` / `verify-full` (checked). */
  sslMode: 'disable' | 'require' | 'verify';
}

const DRIVERS: Record<string, SqlDialect> = { postgres: 'postgres', postgresql: 'postgres', pg: 'postgres', mysql: 'mysql', mariadb: 'mysql' };

/** Reads either spelling of a detail key (the configuration keeps keys as written: `ssl_mode` or `sslMode`). */
function field(details: Record<string, unknown>, snake: string, camel = snake): unknown {
  return details[snake] ?? details[camel];
}

export function sqlTargetOf(name: string, details: Record<string, unknown>): SqlTarget {
  const text = (value: unknown) => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined);
  const host = text(field(details, 'host'));
  if (!host) throw new ToolError('FAILED_PRECONDITION', `connection '${name}' has no host in its sqldb details`);
  const portText = text(field(details, 'port'));
  const named = (text(field(details, 'driver')) ?? text(field(details, 'engine')) ?? text(field(details, 'dialect')))?.toLowerCase();
  if (named !== undefined && !DRIVERS[named]) {
    throw new ToolError('FAILED_PRECONDITION', `connection '${name}': driver '${named}' is not one of postgres, mysql`);
  }
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && (!Number.isInteger(port) || port <= 0 || port > 65535)) {
    throw new ToolError('FAILED_PRECONDITION', `connection '${name}': port '${portText}' is not a TCP port`);
  }
  const driver = named ? DRIVERS[named] : port === 3306 ? 'mysql' : 'postgres';
  const ssl = (text(field(details, 'ssl_mode', 'sslMode')) ?? 'disable').toLowerCase();
  const sslMode = ssl === 'require' ? 'require' : ssl === 'verify-ca' || ssl === 'verify-full' || ssl === 'verify_identity' ? 'verify' : 'disable';
  return {
    driver,
    host,
    port: port ?? (driver === 'mysql' ? 3306 : 5432),
    database: text(field(details, 'database')) ?? '',
    user: text(field(details, 'username')) ?? text(field(details, 'user')) ?? '',
    password: text(field(details, 'password')),
    sslMode,
  };
}
