/**
 * The demo organization's sample database: when the machine's PostgreSQL answers (127.0.0.1:5432,
 * user postgres, trust authentication; SVC_DEMO_POSTGRES=host:port elsewhere, `off` to skip), a
 * `svc_demo` database with a small `orders` table, created and seeded idempotently, which the demo's
 * SQL connection and its agent read as `svc_demo_reader`, a role that may only select from it (the
 * tools' read-only transaction is a guard; the role is the permission). Without PostgreSQL the demo
 * has no SQL connection, and says so.
 */
import { Client } from 'pg';

export const DEMO_DATABASE = 'svc_demo';
export const DEMO_CONNECTION_ID = 'sample-orders';
export const DEMO_AGENT_ID = 'analyst';
export const DEMO_READER = 'svc_demo_reader';

export interface DemoDatabase {
  host: string;
  port: number;
  database: string;
  username: string;
}

const ORDERS = `CREATE TABLE IF NOT EXISTS orders (
  id integer PRIMARY KEY,
  customer text NOT NULL,
  status text NOT NULL,
  total numeric(10, 2) NOT NULL,
  placed_at timestamptz NOT NULL
)`;

/** Twelve orders, the same on every machine (ON CONFLICT keeps a re-seed from adding any). */
const SEED = `INSERT INTO orders (id, customer, status, total, placed_at)
SELECT i,
       (ARRAY['ada', 'bob', 'cy', 'dee'])[1 + i % 4],
       (ARRAY['paid', 'paid', 'shipped', 'refunded'])[1 + i % 4],
       round((10 + i * 7.25)::numeric, 2),
       timestamptz '2026-01-01 09:00:00+00' + i * interval '5 hours'
FROM generate_series(1, 12) AS i
ON CONFLICT (id) DO NOTHING`;

/** The sample database, ready; null (with the reason logged) when PostgreSQL does not answer. */
export async function prepareDemoDatabase(log: (line: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<DemoDatabase | null> {
  const setting = env.SVC_DEMO_POSTGRES ?? '127.0.0.1:5432';
  if (setting === 'off') return null;
  const colon = setting.lastIndexOf(':');
  const host = colon < 0 ? setting : setting.slice(0, colon);
  const port = colon < 0 ? 5432 : Number(setting.slice(colon + 1));
  const target = { host, port, user: 'postgres', connectionTimeoutMillis: 2_000 };
  try {
    const admin = new Client({ ...target, database: 'postgres' });
    await admin.connect();
    try {
      const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DEMO_DATABASE]);
      // Another process may create either first (42P04: database, 42710: role).
      if (exists.rowCount === 0) await ignoring('42P04', () => admin.query(`CREATE DATABASE ${DEMO_DATABASE}`));
      const reader = await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [DEMO_READER]);
      if (reader.rowCount === 0) await ignoring('42710', () => admin.query(`CREATE ROLE ${DEMO_READER} LOGIN`));
    } finally {
      await admin.end();
    }
    const demo = new Client({ ...target, database: DEMO_DATABASE });
    await demo.connect();
    try {
      // Two apis starting at once would race on CREATE TABLE IF NOT EXISTS and the grants: one at a time.
      await demo.query('BEGIN');
      await demo.query('SELECT pg_advisory_xact_lock(hashtext($1))', [DEMO_DATABASE]);
      await demo.query(ORDERS);
      await demo.query(SEED);
      await demo.query(`GRANT CONNECT ON DATABASE ${DEMO_DATABASE} TO ${DEMO_READER}`);
      await demo.query(`GRANT USAGE ON SCHEMA public TO ${DEMO_READER}`);
      await demo.query(`GRANT SELECT ON orders TO ${DEMO_READER}`);
      await demo.query('COMMIT');
    } finally {
      await demo.end();
    }
    return { host, port, database: DEMO_DATABASE, username: DEMO_READER };
  } catch (error) {
    log(`demo: no sample SQL database (PostgreSQL at ${host}:${port}: ${(error as Error).message}); the demo organization has no SQL connection`);
    return null;
  }
}

async function ignoring(code: string, work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if ((error as { code?: string }).code !== code) throw error;
  }
}
