/**
 * The SQL tools against the real servers (PostgreSQL and MariaDB/MySQL, addresses from the
 * environment: test/support/sql-servers.ts). Each test makes its own database and drops it after.
 */
import { createTestDatabase, describeWith, type Driver, sqldbDetails, sqlServer, type TestDatabase } from '../../../../../../test/support/sql-servers';
import { DEFAULT_TOOL_LIMITS, type ToolConnection, ToolError, type ToolLimits } from '../tool-adapter.port';
import { SqlAdapter } from './sql-adapter';

const PASSWORD = 'Pw-never-shown-7f3a9c';

for (const driver of ['postgres', 'mysql'] as Driver[]) {
  const server = sqlServer(driver);
  describeWith(server)(`the SQL tools on ${driver === 'postgres' ? 'PostgreSQL' : 'MariaDB/MySQL'} (a real server)`, () => {
    jest.setTimeout(30_000);
    let db: TestDatabase;
    let adapter: SqlAdapter;
    let connection: ToolConnection;
    const limits = (overrides: Partial<ToolLimits> = {}): ToolLimits => ({ ...DEFAULT_TOOL_LIMITS, timeoutMs: 5_000, ...overrides });
    const run = (tool: string, args: Record<string, unknown>, overrides: Partial<ToolLimits> = {}, on = connection) => adapter.run(tool, args, on, { limits: limits(overrides) });
    const failure = async (tool: string, args: Record<string, unknown>, overrides: Partial<ToolLimits> = {}, on = connection): Promise<ToolError> => {
      try {
        await run(tool, args, overrides, on);
      } catch (error) {
        expect(error).toBeInstanceOf(ToolError);
        return error as ToolError;
      }
      throw new Error(`${tool} ${JSON.stringify(args)} did not fail`);
    };
    const count = async (table: string) => ((await run('TOOL_SQLDB_QUERY', { sql: `select count(*) from ${table}` })).rows as unknown[][])[0][0];

    beforeEach(async () => {
      db = await createTestDatabase(server);
      const text = driver === 'postgres' ? 'text' : 'varchar(200)';
      await db.exec(`create table orders (id integer primary key, customer ${text} not null, total numeric(10,2), placed_at timestamp)`);
      await db.exec(`insert into orders values (1, 'ada', 12.50, '2026-01-01 10:00:00'), (2, 'bob', 7.00, '2026-01-02 11:00:00'), (3, 'cy', 99.99, null)`);
      await db.exec(`create table events (id integer primary key, payload ${text})`);
      const values = Array.from({ length: 50 }, (_, i) => `(${i}, '${'e'.repeat(100)}')`).join(', ');
      await db.exec(`insert into events values ${values}`);
      adapter = new SqlAdapter({ idleMs: 60_000, timeoutMs: 5_000 });
      connection = { name: 'connections/warehouse', type: 'CONNECTION_TYPE_SQLDB', details: sqldbDetails(server, db.name) };
    });
    afterEach(async () => {
      await adapter.close();
      await db.drop();
    });

    it('given a table of three orders, when the model asks for the count, then it gets the real count', async () => {
      expect(await run('TOOL_SQLDB_QUERY', { sql: 'select count(*) as n from orders;' })).toEqual({ columns: ['n'], rows: [[3]], rowCount: 1 });
      const rows = await run('TOOL_SQLDB_QUERY', { sql: 'select customer, total, placed_at from orders order by id' });
      expect(rows.rows).toEqual([
        ['ada', '12.50', '2026-01-01 10:00:00'],
        ['bob', '7.00', '2026-01-02 11:00:00'],
        ['cy', '99.99', null],
      ]);
    });

    it('given an UPDATE, an INSERT, a DELETE and DDL, when run through the tool, then the read-only transaction refuses each and nothing changes', async () => {
      const writes = ["update orders set total = 0", "insert into orders values (4, 'dan', 1, null)", 'delete from orders', 'drop table orders', 'create table stolen (x integer)', 'truncate orders'];
      if (driver === 'postgres') writes.push('with gone as (delete from orders returning *) select count(*) from gone');
      for (const sql of writes) {
        const error = await failure('TOOL_SQLDB_QUERY', { sql });
        expect([sql, error.code]).toEqual([sql, 'PERMISSION_DENIED']);
        expect(error.message).toMatch(/read-only|READ ONLY/i);
      }
      expect(await count('orders')).toBe(3);
      expect((await run('TOOL_SQLDB_QUERY', { sql: 'select sum(total) from orders' })).rows).toEqual([['119.49']]);
      expect(((await run('TOOL_SQLDB_LIST_TABLES', {})).tables as Array<{ name: string }>).map((t) => t.name.replace(/^public\./, ''))).toEqual(['events', 'orders']);
    });

    it('given a statement that runs past a 500 ms timeout, when run, then the database cancels it and the tool answers DEADLINE_EXCEEDED', async () => {
      const started = Date.now();
      const error = await failure('TOOL_SQLDB_QUERY', { sql: driver === 'postgres' ? 'select pg_sleep(5)' : 'select sleep(5) from orders' }, { timeoutMs: 500 });
      expect(error.code).toBe('DEADLINE_EXCEEDED');
      expect(error.message).toContain('500 ms');
      expect(Date.now() - started).toBeLessThan(3_000);
      // The pooled connection is fine afterwards, and the timeout does not outlive the call.
      expect(await count('orders')).toBe(3);
    });

    it('given two statements, when run, then they are refused before anything is sent', async () => {
      const error = await failure('TOOL_SQLDB_QUERY', { sql: "select 1; update orders set customer = 'x'" });
      expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('only one statement') });
      expect((await run('TOOL_SQLDB_QUERY', { sql: "select count(*) from orders where customer = 'x'" })).rows).toEqual([[0]]);
      expect(await failure('TOOL_SQLDB_QUERY', { sql: 'SET SESSION TRANSACTION READ WRITE' })).toMatchObject({ code: 'INVALID_ARGUMENT' });
    });

    it('given more rows than the row cap or bytes than the byte cap, when run, then the result is cut and says which cap cut it', async () => {
      const byRows = await run('TOOL_SQLDB_QUERY', { sql: 'select id from events order by id' }, { maxRows: 10 });
      expect(byRows.rows).toEqual(Array.from({ length: 10 }, (_, i) => [i]));
      expect(byRows.truncated).toEqual({ by: 'rows', shown: 10, message: expect.stringContaining('more than 10 rows') });
      const byBytes = await run('TOOL_SQLDB_QUERY', { sql: 'select id, payload from events order by id' }, { maxBytes: 2_000 });
      expect(byBytes.truncated).toMatchObject({ by: 'bytes' });
      expect(byBytes.rowCount).toBeGreaterThan(5);
      expect(byBytes.rowCount).toBeLessThan(20);
      expect(Buffer.byteLength(JSON.stringify(byBytes))).toBeLessThanOrEqual(2_000);
      const tables = await run('TOOL_SQLDB_LIST_TABLES', {}, { maxRows: 1 });
      expect(tables).toMatchObject({ tables: [{ name: expect.stringMatching(/events$/), type: 'TABLE' }], truncated: { by: 'rows', shown: 1 } });
    });

    it('given the catalog, when tables are listed and described and the schema is read, then names and database type names come back; an unknown table is NOT_FOUND', async () => {
      const prefix = driver === 'postgres' ? 'public.' : '';
      expect(await run('TOOL_SQLDB_LIST_TABLES', {})).toEqual({ tables: [{ name: `${prefix}events`, type: 'TABLE' }, { name: `${prefix}orders`, type: 'TABLE' }] });
      const described = await run('TOOL_SQLDB_DESCRIBE_TABLE', { table: 'orders' });
      expect(described).toEqual({
        table: 'orders',
        columns: [
          { name: 'id', type: driver === 'postgres' ? 'integer' : expect.stringMatching(/^int/), nullable: false },
          { name: 'customer', type: driver === 'postgres' ? 'text' : 'varchar(200)', nullable: false },
          { name: 'total', type: driver === 'postgres' ? 'numeric(10,2)' : 'decimal(10,2)', nullable: true },
          { name: 'placed_at', type: driver === 'postgres' ? 'timestamp without time zone' : 'timestamp', nullable: true },
        ],
      });
      expect(await failure('TOOL_SQLDB_DESCRIBE_TABLE', { table: 'nope' })).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining("'nope'") });
      expect(await failure('TOOL_SQLDB_DESCRIBE_TABLE', {})).toMatchObject({ code: 'INVALID_ARGUMENT' });
      const schema = await adapter.schemaOf(connection, { limits: limits() });
      expect(schema.tables.map((t) => t.name)).toEqual([`${prefix}events`, `${prefix}orders`]);
      expect(schema.tables[1].columns.map((c) => c.name)).toEqual(['id', 'customer', 'total', 'placed_at']);
      expect(schema.truncated).toBeUndefined();
    });

    it('given a connection with a password, when its calls fail in every way, then no result and no error carries the password', async () => {
      const user = `${db.name}_u`;
      if (driver === 'postgres') {
        await db.exec(`create role ${user} login password '${PASSWORD}'`);
        await db.exec(`grant select on orders to ${user}`);
      } else {
        for (const host of ['%', 'localhost']) {
          await db.exec(`create user '${user}'@'${host}' identified by '${PASSWORD}'`);
          await db.exec(`grant select on ${db.name}.orders to '${user}'@'${host}'`);
        }
      }
      try {
        const withPassword = { ...connection, details: sqldbDetails(server, db.name, { username: user, password: PASSWORD }) };
        expect(await run('TOOL_SQLDB_QUERY', { sql: 'select count(*) from orders' }, {}, withPassword)).toMatchObject({ rows: [[3]] });
        const failures = [
          await failure('TOOL_SQLDB_QUERY', { sql: 'select * from events' }, {}, withPassword),
          await failure('TOOL_SQLDB_QUERY', { sql: 'selec nothing' }, {}, withPassword),
          await failure('TOOL_SQLDB_QUERY', { sql: 'select 1' }, {}, { ...withPassword, details: { ...withPassword.details, database: 'no_such_db' } }),
          await failure('TOOL_SQLDB_QUERY', { sql: 'select 1' }, {}, { ...withPassword, details: { ...withPassword.details, port: 1 } }),
        ];
        expect(failures.map((f) => f.code)).toEqual(['PERMISSION_DENIED', 'INVALID_ARGUMENT', driver === 'postgres' ? 'FAILED_PRECONDITION' : 'PERMISSION_DENIED', 'UNAVAILABLE']);
        expect(failures[3].message).toContain('cannot be reached');
        if (driver === 'mysql') {
          // The test PostgreSQL trusts every local sign-in; MariaDB checks the password.
          const refused = await failure('TOOL_SQLDB_QUERY', { sql: 'select 1' }, {}, { ...withPassword, details: { ...withPassword.details, password: `${PASSWORD}-wrong` } });
          expect(refused).toMatchObject({ code: 'FAILED_PRECONDITION', message: expect.stringContaining('cannot sign in') });
          failures.push(refused);
        }
        for (const error of failures) {
          expect(`${error.message} ${JSON.stringify(error)} ${String(error.stack)}`).not.toContain(PASSWORD);
        }
      } finally {
        await adapter.close();
        if (driver === 'postgres') {
          await db.exec(`revoke all on orders from ${user}`);
          await db.exec(`drop role ${user}`);
        } else {
          for (const host of ['%', 'localhost']) await db.exec(`drop user '${user}'@'${host}'`);
        }
      }
    });

    it('keeps one pool per connection configuration: the same details reuse it, changed details get a new one', async () => {
      await count('orders');
      await count('events');
      expect(adapter.pools.size).toBe(1);
      await run('TOOL_SQLDB_QUERY', { sql: 'select 1' }, {}, { ...connection, details: { ...connection.details, ssl_mode: 'disable', username: server.user, extra: 'changed' } });
      expect(adapter.pools.size).toBe(1);
      await run('TOOL_SQLDB_QUERY', { sql: 'select 1' }, {}, { ...connection, details: sqldbDetails(server, db.name, { port: String(server.port) }) });
      expect(adapter.pools.size).toBe(1);
      await run('TOOL_SQLDB_QUERY', { sql: 'select 1' }, {}, { ...connection, details: sqldbDetails(server, db.name, { host: 'localhost' }) });
      expect(adapter.pools.size).toBe(2);
    });
  });
}
