/**
 * The real SQL servers tests run against: PostgreSQL (PGHOST/PGPORT/PGUSER/PGPASSWORD/PGDATABASE,
 * default 127.0.0.1:5432, postgres, trust, database test) and MariaDB/MySQL (MYSQL_HOST/MYSQL_PORT/
 * MYSQL_USER/MYSQL_PASSWORD, default 127.0.0.1:3306, root, no password). Each test makes a database of
 * its own and drops it after. A server that does not answer is skipped with a message, unless
 * SVC_REQUIRE_SERVERS=1 (as .ci/run sets) makes its absence a failure.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createConnection } from 'mysql2/promise';
import { Client } from 'pg';

export type Driver = 'postgres' | 'mysql';

export interface SqlServer {
  driver: Driver;
  host: string;
  port: number;
  user: string;
  password: string;
  /** The database an admin connection opens (PostgreSQL needs one). */
  adminDatabase?: string;
}

export function sqlServer(driver: Driver, env: NodeJS.ProcessEnv = process.env): SqlServer {
  return driver === 'postgres'
    ? { driver, host: env.PGHOST || '127.0.0.1', port: Number(env.PGPORT || 5432), user: env.PGUSER || 'postgres', password: env.PGPASSWORD || '', adminDatabase: env.PGDATABASE || 'test' }
    : { driver, host: env.MYSQL_HOST || '127.0.0.1', port: Number(env.MYSQL_PORT || 3306), user: env.MYSQL_USER || 'root', password: env.MYSQL_PASSWORD || '' };
}

/**
 * Whether the server accepts TCP connections, answered synchronously (so a suite can choose
 * `describe` or `describe.skip` when it is declared).
 */
export function serverAvailable(server: SqlServer): boolean {
  const probe = `require('net').connect(${server.port}, ${JSON.stringify(server.host)}).on('connect', () => process.exit(0)).on('error', () => process.exit(1)).setTimeout(2000, () => process.exit(1))`;
  const up = spawnSync(process.execPath, ['-e', probe], { timeout: 5000 }).status === 0;
  const where = `${server.driver === 'postgres' ? 'PostgreSQL' : 'MariaDB/MySQL'} at ${server.host}:${server.port}`;
  if (!up && process.env.SVC_REQUIRE_SERVERS === '1') throw new Error(`${where} is required (SVC_REQUIRE_SERVERS=1) and does not answer`);
  if (!up) console.warn(`${where} does not answer: its tests are skipped`);
  return up;
}

/** `describe` when the server answers, else `describe.skip`. */
export function describeWith(server: SqlServer): jest.Describe {
  return serverAvailable(server) ? describe : describe.skip;
}

export interface TestDatabase {
  name: string;
  /** Runs statements as the admin user inside the database (setup only: no guard). */
  exec(sql: string): Promise<void>;
  drop(): Promise<void>;
}

/** A fresh database `svc_t_<random>` on the server. */
export async function createTestDatabase(server: SqlServer): Promise<TestDatabase> {
  const name = `svc_t_${randomBytes(6).toString('hex')}`;
  if (server.driver === 'postgres') {
    const admin = new Client({ host: server.host, port: server.port, user: server.user, password: server.password, database: server.adminDatabase });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const inside = new Client({ host: server.host, port: server.port, user: server.user, password: server.password, database: name });
    await inside.connect();
    return {
      name,
      exec: async (sql) => void (await inside.query(sql)),
      drop: async () => {
        await inside.end();
        const again = new Client({ host: server.host, port: server.port, user: server.user, password: server.password, database: server.adminDatabase });
        await again.connect();
        await again.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await again.end();
      },
    };
  }
  const admin = await createConnection({ host: server.host, port: server.port, user: server.user, password: server.password, multipleStatements: true });
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.query(`USE ${name}`);
  return {
    name,
    exec: async (sql) => void (await admin.query(sql)),
    drop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name}`);
      await admin.end();
    },
  };
}

/** The `details.sqldb` of a connection to the test database. */
export function sqldbDetails(server: SqlServer, database: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { driver: server.driver, host: server.host, port: server.port, database, username: server.user, password: server.password, ssl_mode: 'disable', ...overrides };
}
