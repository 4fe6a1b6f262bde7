/**
 * One pool per SQL connection, keyed by the connection's name and a hash of its details (secrets
 * opened): a reconfigured connection gets a new pool (two organizations' connections of one name
 * share a pool only when they reach the same database as the same user). A pool nobody used for
 * `idleMs` is closed by a sweep, the old pool of a reconfigured connection too; idle sockets close
 * sooner on their own.
 */
import { createHash } from 'node:crypto';
import { MysqlEngine } from './mysql-engine';
import { PostgresEngine } from './postgres-engine';
import { type SqlTarget, sqlTargetOf } from './sql-details';
import type { SqlEngine } from './sql-engine';
import type { ToolConnection } from '../tool-adapter.port';

export interface SqlPoolOptions {
  /** A pool unused this long is closed. */
  idleMs: number;
  /** The client-side backstop of a pool's queries is derived from this (PostgreSQL's query_timeout). */
  timeoutMs: number;
}

export const DEFAULT_SQL_POOL_OPTIONS: SqlPoolOptions = { idleMs: 5 * 60_000, timeoutMs: 10_000 };

interface Entry {
  key: string;
  engine: SqlEngine;
  lastUsed: number;
}

export class SqlPools {
  private readonly pools = new Map<string, Entry>();
  private sweeper: NodeJS.Timeout | null = null;

  constructor(private readonly options: SqlPoolOptions = DEFAULT_SQL_POOL_OPTIONS) {}

  /** The engine of this connection as configured now. */
  engineFor(connection: ToolConnection): { engine: SqlEngine; target: SqlTarget } {
    const target = sqlTargetOf(connection.name, connection.details);
    const key = `${connection.name}\u0000${createHash('sha256').update(JSON.stringify(target)).digest('base64url')}`;
    let entry = this.pools.get(key);
    if (!entry) {
      const options = { idleMs: Math.min(this.options.idleMs, 60_000), timeoutMs: this.options.timeoutMs };
      const engine = target.driver === 'mysql' ? new MysqlEngine(connection.name, target, options) : new PostgresEngine(connection.name, target, options);
      entry = { key, engine, lastUsed: Date.now() };
      this.pools.set(key, entry);
      this.sweep();
    }
    entry.lastUsed = Date.now();
    return { engine: entry.engine, target };
  }

  /** How many pools are open (tests). */
  get size(): number {
    return this.pools.size;
  }

  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    const entries = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(entries.map((e) => e.engine.end().catch(() => undefined)));
  }

  private sweep(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => {
      const now = Date.now();
      for (const [key, entry] of this.pools) {
        if (now - entry.lastUsed < this.options.idleMs) continue;
        this.pools.delete(key);
        void entry.engine.end().catch(() => undefined);
      }
      if (this.pools.size === 0 && this.sweeper) {
        clearInterval(this.sweeper);
        this.sweeper = null;
      }
    }, Math.max(1_000, Math.min(this.options.idleMs, 30_000)));
    this.sweeper.unref();
  }
}
