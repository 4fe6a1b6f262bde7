/**
 * PostgreSQL through `pg`: `BEGIN READ ONLY`, `SET LOCAL statement_timeout`, the statement, `ROLLBACK`.
 * A statement that can be a cursor's query is fetched through one (`DECLARE ... NO SCROLL CURSOR`,
 * `FETCH maxRows + 1`), so a huge result is never read past the row cap; other statements (SHOW,
 * EXPLAIN, and writes, which the transaction refuses) run as they are. Every statement goes through
 * the extended protocol, which refuses a second statement in the text on its own.
 */
import { DatabaseError, Pool, type PoolClient, type QueryArrayConfig, type QueryArrayResult, types } from 'pg';
import { ToolError } from '../tool-adapter.port';
import type { SqlTarget } from './sql-details';
import { CLIENT_GRACE_MS, CONNECT_TIMEOUT_MS, NETWORK_CODES, POOL_MAX_CONNECTIONS, type ReadOnlyQuery, type SqlEngine } from './sql-engine';
import type { SqlRows } from './sql-result';

/** Statements a cursor can hold (PostgreSQL: SELECT, VALUES, TABLE, and WITH around them). */
const CURSOR_KEYWORDS: ReadonlySet<string> = new Set(['select', 'with', 'values', 'table']);

// Dates and times as the database writes them (no shift into this process's time zone); int8 as a
// number when it is exact (a row count), else as text.
const asText = (value: string) => value;
const TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === 1082 || oid === 1114 || oid === 1184 || oid === 1083 || oid === 1266) return asText;
    if (oid === 20) return (value: string) => (Number.isSafeInteger(Number(value)) ? Number(value) : value);
    return types.getTypeParser(oid, format ?? 'text');
  }) as typeof types.getTypeParser,
};

type ExtendedQuery = QueryArrayConfig & { queryMode: 'extended' };

export class PostgresEngine implements SqlEngine {
  readonly driver = 'postgres' as const;
  private readonly pool: Pool;

  constructor(
    private readonly name: string,
    target: SqlTarget,
    options: { idleMs: number; timeoutMs: number },
  ) {
    this.pool = new Pool({
      host: target.host,
      port: target.port,
      database: target.database || undefined,
      user: target.user || undefined,
      password: target.password,
      ssl: target.sslMode === 'disable' ? false : { rejectUnauthorized: target.sslMode === 'verify' },
      max: POOL_MAX_CONNECTIONS,
      idleTimeoutMillis: options.idleMs,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      // The client's own backstop behind statement_timeout (a server that stops answering).
      query_timeout: options.timeoutMs + CLIENT_GRACE_MS,
      application_name: 'svc-tools',
      allowExitOnIdle: true,
    });
    // An idle connection the server dropped: the pool discards it; the next query opens another.
    this.pool.on('error', () => undefined);
  }

  async query(query: ReadOnlyQuery): Promise<SqlRows> {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw this.fault(error, query.timeoutMs);
    }
    let broken = false;
    try {
      await client.query('BEGIN READ ONLY');
      await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.ceil(query.timeoutMs))}`);
      let result: QueryArrayResult;
      const direct = () => client.query({ text: query.sql, values: query.params ?? [], queryMode: 'extended', rowMode: 'array', types: TYPES } as ExtendedQuery);
      if (query.params === undefined && (CURSOR_KEYWORDS.has(query.keyword) || query.sql.startsWith('('))) {
        await client.query('SAVEPOINT svc_tool_cursor');
        try {
          await client.query({ text: `DECLARE svc_tool_cursor NO SCROLL CURSOR FOR ${query.sql}`, queryMode: 'extended', rowMode: 'array', types: TYPES } as ExtendedQuery);
          result = await client.query({ text: `FETCH FORWARD ${query.maxRows + 1} FROM svc_tool_cursor`, rowMode: 'array', types: TYPES });
        } catch (error) {
          // A statement no cursor can hold (a data-modifying WITH): run it as it is, so the read-only transaction judges it.
          if (!(error instanceof DatabaseError) || error.code !== '0A000') throw error;
          await client.query('ROLLBACK TO SAVEPOINT svc_tool_cursor');
          result = await direct();
        }
      } else {
        result = await direct();
      }
      const rows = (result.rows ?? []) as unknown[][];
      return { columns: (result.fields ?? []).map((f) => f.name), rows: rows.slice(0, query.maxRows), more: rows.length > query.maxRows };
    } catch (error) {
      broken = !(error instanceof DatabaseError);
      throw this.fault(error, query.timeoutMs);
    } finally {
      if (!broken) {
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
      }
      client.release(broken);
    }
  }

  end(): Promise<void> {
    return this.pool.end();
  }

  /** A ToolError the model can act on; the server's message names objects, never credentials. */
  private fault(error: unknown, timeoutMs: number): ToolError {
    if (error instanceof ToolError) return error;
    const err = error as Error & { code?: string };
    if (error instanceof DatabaseError) {
      const code = err.code ?? '';
      if (code === '57014') return new ToolError('DEADLINE_EXCEEDED', `the statement ran past the ${timeoutMs} ms limit and was cancelled`);
      if (code === '25006') return new ToolError('PERMISSION_DENIED', `the tool runs read-only: ${err.message}`);
      if (code === '42501') return new ToolError('PERMISSION_DENIED', err.message);
      if (code.startsWith('28') || code === '3D000') return new ToolError('FAILED_PRECONDITION', `connection '${this.name}' cannot sign in: ${err.message}`);
      if (code.startsWith('08') || code.startsWith('53') || code.startsWith('57') || code.startsWith('58')) {
        return new ToolError('UNAVAILABLE', `connection '${this.name}': ${err.message}`);
      }
      return new ToolError('INVALID_ARGUMENT', err.message);
    }
    if (/timeout/i.test(err.message ?? '')) {
      return new ToolError('DEADLINE_EXCEEDED', `connection '${this.name}' did not answer in time (${timeoutMs} ms limit)`);
    }
    if (err.code && NETWORK_CODES.has(err.code)) return new ToolError('UNAVAILABLE', `connection '${this.name}' cannot be reached (${err.code})`);
    return new ToolError('UNAVAILABLE', `connection '${this.name}' failed: ${err.message}`);
  }
}
