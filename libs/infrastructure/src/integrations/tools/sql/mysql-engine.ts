/**
 * MySQL and MariaDB through `mysql2`: `SET SESSION TRANSACTION READ ONLY` (so a DDL statement's
 * implicit commit does not leave the guard), the statement timeout (MariaDB `max_statement_time`,
 * MySQL `max_execution_time`), `START TRANSACTION READ ONLY`, the statement, `ROLLBACK`. Rows are
 * streamed and only the first `maxRows + 1` kept. mysql2 sends one statement per query
 * (multipleStatements stays off).
 */
import { createPool, type FieldPacket, type Pool, type PoolConnection, type QueryError } from 'mysql2';
import { ToolError } from '../tool-adapter.port';
import type { SqlTarget } from './sql-details';
import { CLIENT_GRACE_MS, CONNECT_TIMEOUT_MS, NETWORK_CODES, POOL_MAX_CONNECTIONS, type ReadOnlyQuery, type SqlEngine } from './sql-engine';
import type { SqlRows } from './sql-result';

const TIMEOUT_ERRNOS: ReadonlySet<number> = new Set([1969, 3024, 1317, 1028]);
const READ_ONLY_ERRNO = 1792;
const DENIED_ERRNOS: ReadonlySet<number> = new Set([1044, 1142, 1143, 1227, 1370]);
const SIGN_IN_ERRNOS: ReadonlySet<number> = new Set([1045, 1049, 1698]);
const UNKNOWN_VARIABLE = 1193;

export class MysqlEngine implements SqlEngine {
  readonly driver = 'mysql' as const;
  private readonly pool: Pool;
  /** Which timeout variable the server knows: MariaDB's (seconds) or MySQL's (milliseconds); found on first use. */
  private timeoutVariable: 'max_statement_time' | 'max_execution_time' = 'max_statement_time';

  constructor(
    private readonly name: string,
    target: SqlTarget,
    options: { idleMs: number },
  ) {
    this.pool = createPool({
      host: target.host,
      port: target.port,
      database: target.database || undefined,
      user: target.user || undefined,
      password: target.password,
      ssl: target.sslMode === 'disable' ? undefined : { rejectUnauthorized: target.sslMode === 'verify' },
      connectionLimit: POOL_MAX_CONNECTIONS,
      maxIdle: 0,
      idleTimeout: options.idleMs,
      connectTimeout: CONNECT_TIMEOUT_MS,
      multipleStatements: false,
      // Dates as the database writes them; big integers exact.
      dateStrings: true,
      supportBigNumbers: true,
      bigNumberStrings: false,
    });
    this.pool.on('connection', (connection) => connection.on('error', () => undefined));
  }

  async query(query: ReadOnlyQuery): Promise<SqlRows> {
    const connection = await new Promise<PoolConnection>((resolve, reject) =>
      this.pool.getConnection((error, c) => (error ? reject(this.fault(error, query.timeoutMs)) : resolve(c))),
    );
    let broken = false;
    const run = (sql: string) => this.simple(connection, sql, query.timeoutMs);
    try {
      await run('SET SESSION TRANSACTION READ ONLY');
      await this.setTimeout(connection, query.timeoutMs);
      await run('START TRANSACTION READ ONLY');
      return await this.stream(connection, query);
    } catch (error) {
      broken = (error as QueryError).fatal === true || (error as QueryError).errno === undefined;
      throw this.fault(error, query.timeoutMs);
    } finally {
      if (!broken) {
        try {
          await run('ROLLBACK');
        } catch {
          broken = true;
        }
      }
      if (broken) connection.destroy();
      else connection.release();
    }
  }

  end(): Promise<void> {
    return new Promise((resolve) => this.pool.end(() => resolve()));
  }

  private async setTimeout(connection: PoolConnection, timeoutMs: number): Promise<void> {
    const value = this.timeoutVariable === 'max_statement_time' ? Math.max(0.001, timeoutMs / 1000) : Math.max(1, Math.ceil(timeoutMs));
    try {
      await this.simple(connection, `SET SESSION ${this.timeoutVariable} = ${value}`, timeoutMs);
    } catch (error) {
      if ((error as QueryError).errno !== UNKNOWN_VARIABLE || this.timeoutVariable === 'max_execution_time') throw error;
      this.timeoutVariable = 'max_execution_time';
      await this.setTimeout(connection, timeoutMs);
    }
  }

  private simple(connection: PoolConnection, sql: string, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => connection.query({ sql, timeout: timeoutMs + CLIENT_GRACE_MS }, (error) => (error ? reject(error) : resolve())));
  }

  /** The statement's rows, keeping the first maxRows + 1 and reading past them without keeping them. */
  private stream(connection: PoolConnection, query: ReadOnlyQuery): Promise<SqlRows> {
    return new Promise((resolve, reject) => {
      const rows: unknown[][] = [];
      let columns: string[] = [];
      let more = false;
      connection
        .query({ sql: query.sql, values: query.params, rowsAsArray: true, timeout: query.timeoutMs + CLIENT_GRACE_MS })
        .on('error', reject)
        .on('fields', (fields: FieldPacket[]) => {
          columns = fields.map((f) => f.name);
        })
        .on('result', (row: unknown) => {
          if (!Array.isArray(row)) return; // the OK packet of a statement without rows
          if (rows.length < query.maxRows) rows.push(row);
          else more = true;
        })
        .on('end', () => resolve({ columns, rows, more }));
    });
  }

  private fault(error: unknown, timeoutMs: number): ToolError {
    if (error instanceof ToolError) return error;
    const err = error as QueryError & { errno?: number; code?: string };
    const errno = err.errno;
    if (errno !== undefined && TIMEOUT_ERRNOS.has(errno)) return new ToolError('DEADLINE_EXCEEDED', `the statement ran past the ${timeoutMs} ms limit and was cancelled`);
    if (err.code === 'PROTOCOL_SEQUENCE_TIMEOUT') return new ToolError('DEADLINE_EXCEEDED', `connection '${this.name}' did not answer in time (${timeoutMs} ms limit)`);
    if (errno === READ_ONLY_ERRNO) return new ToolError('PERMISSION_DENIED', `the tool runs read-only: ${err.message}`);
    if (errno !== undefined && DENIED_ERRNOS.has(errno)) return new ToolError('PERMISSION_DENIED', err.message);
    if (errno !== undefined && SIGN_IN_ERRNOS.has(errno)) return new ToolError('FAILED_PRECONDITION', `connection '${this.name}' cannot sign in: ${err.message}`);
    if (err.code && NETWORK_CODES.has(err.code)) return new ToolError('UNAVAILABLE', `connection '${this.name}' cannot be reached (${err.code})`);
    if (err.fatal || errno === undefined) return new ToolError('UNAVAILABLE', `connection '${this.name}' failed: ${err.message}`);
    return new ToolError('INVALID_ARGUMENT', err.message);
  }
}
