/**
 * The machine's PostgreSQL for tests that need a real server (issue 20): address from PG* variables
 * with the CI defaults (127.0.0.1:5432, user postgres, trust authentication). A test creates its own
 * database and drops it after. Without a server the test says so and skips, unless
 * SVC_REQUIRE_SERVERS=1 (as .ci/run sets) makes the absence a failure.
 */
import { Client, type ClientConfig } from 'pg';
import { randomBytes } from 'node:crypto';

export const PG = {
  host: process.env.PGHOST ?? '127.0.0.1',
  port: Number(process.env.PGPORT ?? 5432),
  user: process.env.PGUSER ?? 'postgres',
  password: process.env.PGPASSWORD,
  database: process.env.PGDATABASE ?? 'test',
};

async function connect(config: ClientConfig): Promise<Client> {
  const client = new Client({ ...config, connectionTimeoutMillis: 3_000 });
  await client.connect();
  return client;
}

/** Whether PostgreSQL answers; throws under SVC_REQUIRE_SERVERS=1 when it does not. */
export async function postgresAvailable(what: string): Promise<boolean> {
  try {
    const client = await connect(PG);
    await client.end();
    return true;
  } catch (error) {
    const message = `PostgreSQL at ${PG.host}:${PG.port} is not reachable (${(error as Error).message})`;
    if (process.env.SVC_REQUIRE_SERVERS === '1') throw new Error(`${message}; ${what} needs it (SVC_REQUIRE_SERVERS=1)`);
    console.warn(`${message}: ${what} skipped`);
    return false;
  }
}

export interface TestDatabase {
  name: string;
  /** A client on the new database, for the test's tables. */
  client: Client;
  drop(): Promise<void>;
}

/** A fresh database named `svc_<prefix>_<random>`, with `ddl` run in it. */
export async function createTestDatabase(prefix: string, ddl = ''): Promise<TestDatabase> {
  const name = `svc_${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = await connect(PG);
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const client = await connect({ ...PG, database: name });
  if (ddl) await client.query(ddl);
  return {
    name,
    client,
    drop: async () => {
      await client.end().catch(() => undefined);
      const again = await connect(PG);
      try {
        await again.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await again.end();
      }
    },
  };
}
