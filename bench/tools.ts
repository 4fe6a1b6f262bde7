/**
 * Tool latency (issue 20): the tool executor and its SQL adapter against the real servers, as the
 * projector runs them (connection read from a read model, secrets opened, pooled sockets), one call
 * after another. Not a phase of `npm run bench` (it needs PostgreSQL and MariaDB, not the stack):
 *
 *   npm run bench:tools   (npm run build && node dist/bench/tools.js)
 *
 *   BENCH_TOOL_CALLS   calls per measure (default 300)
 *   PGHOST/PGPORT/PGUSER/PGDATABASE, MYSQL_HOST/MYSQL_PORT/MYSQL_USER/MYSQL_PASSWORD   the servers (the tests' defaults)
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { Client } from 'pg';
import type { DomainEvent } from '../libs/domain/src/shared/decider';
import { connectionsProjection } from '../libs/application/src/areas/connections/connections.projection';
import { SecretBox, sealSecrets } from '../libs/infrastructure/src/config/secrets';
import type { RecordedEvent } from '../libs/infrastructure/src/event-store/event-store.port';
import { createToolAdapters } from '../libs/infrastructure/src/integrations/tools/adapters';
import { DEFAULT_TOOL_LIMITS } from '../libs/infrastructure/src/integrations/tools/tool-adapter.port';
import { ToolExecutor } from '../libs/infrastructure/src/integrations/tools/tool-executor';
import { SqliteReadStore } from '../libs/infrastructure/src/read-store';
import { fmtMs, Samples, summarize } from './stats';

const CALLS = Number(process.env.BENCH_TOOL_CALLS ?? 300);
const ROWS = 10_000;

interface Server {
  driver: 'postgres' | 'mysql';
  host: string;
  port: number;
  user: string;
  password: string;
}

const servers: Server[] = [
  { driver: 'postgres', host: process.env.PGHOST || '127.0.0.1', port: Number(process.env.PGPORT || 5432), user: process.env.PGUSER || 'postgres', password: process.env.PGPASSWORD || '' },
  { driver: 'mysql', host: process.env.MYSQL_HOST || '127.0.0.1', port: Number(process.env.MYSQL_PORT || 3306), user: process.env.MYSQL_USER || 'root', password: process.env.MYSQL_PASSWORD || '' },
];

/** Makes the database with ROWS orders; answers how to drop it. */
async function seed(server: Server, name: string): Promise<() => Promise<void>> {
  if (server.driver === 'postgres') {
    const admin = new Client({ host: server.host, port: server.port, user: server.user, password: server.password, database: process.env.PGDATABASE || 'test' });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const db = new Client({ host: server.host, port: server.port, user: server.user, password: server.password, database: name });
    await db.connect();
    await db.query('CREATE TABLE orders (id integer PRIMARY KEY, customer text NOT NULL, total numeric(10,2) NOT NULL)');
    await db.query(`INSERT INTO orders SELECT i, concat('customer ', i), i * 1.5 FROM generate_series(1, ${ROWS}) AS g(i)`);
    await db.end();
    return async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    };
  }
  const admin = await createConnection({ host: server.host, port: server.port, user: server.user, password: server.password });
  const drop = async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.end();
  };
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.query(`USE ${name}`);
    await admin.query('CREATE TABLE orders (id integer PRIMARY KEY, customer varchar(50) NOT NULL, total decimal(10,2) NOT NULL)');
    // MySQL and MariaDB share no row generator: batches of literal rows.
    for (let from = 1; from <= ROWS; from += 1000) {
      const batch = Array.from({ length: Math.min(1000, ROWS - from + 1) }, (_, k) => `(${from + k}, 'customer ${from + k}', ${(from + k) * 1.5})`);
      await admin.query(`INSERT INTO orders VALUES ${batch.join(', ')}`);
    }
  } catch (error) {
    await drop();
    throw error;
  }
  return drop;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-tools-'));
  const reads = new SqliteReadStore({ file: join(dir, 'read.db') });
  const box = SecretBox.fromEnvironment(dir, { SVC_ENCRYPTION_KEY: randomBytes(32).toString('base64') });
  const executor = new ToolExecutor({ reads, secrets: box, adapters: createToolAdapters(DEFAULT_TOOL_LIMITS), env: {} });
  const rows: string[] = [];
  try {
    for (const server of servers) {
      const name = `svc_bench_${randomBytes(4).toString('hex')}`;
      let drop: () => Promise<void>;
      try {
        drop = await seed(server, name);
      } catch (error) {
        console.error(`${server.driver} at ${server.host}:${server.port}: skipped (${(error as Error).message})`);
        continue;
      }
      try {
        const connection = `connections/${server.driver}`;
        const details = { sqldb: { driver: server.driver, host: server.host, port: server.port, database: name, username: server.user, password: server.password, ssl_mode: 'disable' } };
        const event = { type: 'ConnectionConfigured', data: { connection: { name: connection, displayName: connection, description: '', connectionType: 'CONNECTION_TYPE_SQLDB', connectionDetails: sealSecrets(details, box), toolConfigurations: [] }, createTime: new Date().toISOString() } } as unknown as DomainEvent;
        const ops = connectionsProjection.handle({ event, record: {} as RecordedEvent, org: 'bench', resourceName: connection, pos: 1 });
        await reads.commit({ checkpoint: `connections-${server.driver}`, position: { commit: 1n, prepare: 1n }, ops });
        const agent = { name: 'agents/bench', prompt: '', enabledTools: ['TOOL_SQLDB_QUERY', 'TOOL_SQLDB_LIST_TABLES', 'TOOL_SQLDB_DESCRIBE_TABLE'], connections: [{ name: connection, enabledTools: ['TOOL_SQLDB_QUERY', 'TOOL_SQLDB_LIST_TABLES', 'TOOL_SQLDB_DESCRIBE_TABLE'] }] };
        const session = { name: 'agents/bench/sessions/s', org: 'bench', settings: { dryRun: false, incognito: false } };
        const measures: Array<[string, string, Record<string, unknown>]> = [
          ['count(*) of 10k rows', 'TOOL_SQLDB_QUERY', { sql: 'select count(*) from orders' }],
          ['500 rows (the row cap) of 10k', 'TOOL_SQLDB_QUERY', { sql: 'select * from orders order by id' }],
          ['LIST_TABLES', 'TOOL_SQLDB_LIST_TABLES', {}],
          ['DESCRIBE_TABLE', 'TOOL_SQLDB_DESCRIBE_TABLE', { table: 'orders' }],
        ];
        for (const [label, tool, args] of measures) {
          const samples = new Samples();
          for (let i = 0; i < CALLS + 20; i++) {
            const started = performance.now();
            const result = await executor.execute({ id: `c${i}`, name: tool, arguments: JSON.stringify(args) }, { agent, session });
            if (i === 0 && result.content.includes('"error"')) throw new Error(`${label}: ${result.content}`);
            // The first 20 calls warm the pool and the server's caches.
            if (i >= 20) samples.push(performance.now() - started);
          }
          const s = summarize(samples);
          rows.push(`| ${server.driver === 'postgres' ? 'PostgreSQL' : 'MariaDB'} | ${label} | ${fmtMs(s.p50)} | ${fmtMs(s.p90)} | ${fmtMs(s.p99)} | ${fmtMs(s.max)} |`);
        }
      } finally {
        await drop();
      }
    }
  } finally {
    await executor.close();
    await reads.close();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`Tool executor latency, ${CALLS} sequential calls each (${ROWS} rows in orders):\n`);
  console.log('| server | call | p50 | p90 | p99 | max |\n|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
