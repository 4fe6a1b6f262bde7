/**
 * The machine's MariaDB (MySQL's dialect) for tests that need a real server (issue 20): address from
 * MYSQL_* variables with the CI defaults (127.0.0.1:3306, user root, empty password). A test creates
 * its own database and drops it after; without a server it says so and skips, unless
 * SVC_REQUIRE_SERVERS=1 makes the absence a failure.
 */
import { randomBytes } from 'node:crypto';
import { createConnection, type Connection } from 'mysql2/promise';

export const MARIADB = {
  host: process.env.MYSQL_HOST ?? '127.0.0.1',
  port: Number(process.env.MYSQL_PORT ?? 3306),
  user: process.env.MYSQL_USER ?? 'root',
  password: process.env.MYSQL_PASSWORD ?? '',
};

/** Whether MariaDB answers; throws under SVC_REQUIRE_SERVERS=1 when it does not. */
export async function mariadbAvailable(what: string): Promise<boolean> {
  try {
    const connection = await createConnection({ ...MARIADB, connectTimeout: 3_000 });
    await connection.end();
    return true;
  } catch (error) {
    const message = `MariaDB at ${MARIADB.host}:${MARIADB.port} is not reachable (${(error as Error).message})`;
    if (process.env.SVC_REQUIRE_SERVERS === '1') throw new Error(`${message}; ${what} needs it (SVC_REQUIRE_SERVERS=1)`);
    console.warn(`${message}: ${what} skipped`);
    return false;
  }
}

export interface TestMariaDatabase {
  name: string;
  connection: Connection;
  drop(): Promise<void>;
}

/** A fresh database named `svc_<prefix>_<random>`, with each of `ddl`'s statements run in it. */
export async function createMariaDatabase(prefix: string, ddl: readonly string[] = []): Promise<TestMariaDatabase> {
  const name = `svc_${prefix}_${randomBytes(4).toString('hex')}`;
  const connection = await createConnection({ ...MARIADB, connectTimeout: 3_000 });
  await connection.query(`CREATE DATABASE ${name}`);
  await connection.query(`USE ${name}`);
  for (const statement of ddl) await connection.query(statement);
  return {
    name,
    connection,
    drop: async () => {
      await connection.query(`DROP DATABASE IF EXISTS ${name}`).catch(() => undefined);
      await connection.end().catch(() => undefined);
    },
  };
}
