import { EventEmitter } from 'node:events';
import { resolve as resolvePath } from 'node:path';
import type Database from 'better-sqlite3';
import { openSqlite } from '../sqlite/driver';
import { enableWal } from '../sqlite/wal';
import { Listeners, type Listener } from './listeners';
import {
  encodeNotification,
  type BusNotification,
  type BusSubscribeOptions,
  type BusSubscription,
  type NotificationBody,
  type NotificationBus,
} from './notification-bus.port';

export interface SqliteNotificationBusOptions {
  /** `${SVC_DATA_DIR}/notifications.db`; every process on the data directory opens the same file. */
  file: string;
  /** Rows kept; older ones are deleted as new ones arrive. Default 10,000. */
  maxRows?: number;
  /** Bytes of notification bodies kept (the same rule). Default 64 MiB. */
  maxBytes?: number;
  /** How often an idle tail looks for rows another process inserted. Default 10 ms. */
  pollIntervalMs?: number;
}

/** In-process wake-ups, keyed by file, so a publish reaches this process's tails without waiting for the poll. */
const published = new EventEmitter().setMaxListeners(0);

const SCHEMA = `
CREATE TABLE IF NOT EXISTS notifications (
  seq   INTEGER PRIMARY KEY AUTOINCREMENT,
  org   TEXT NOT NULL,
  topic TEXT NOT NULL,
  body  TEXT NOT NULL,
  bytes INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS retained (
  id    INTEGER PRIMARY KEY CHECK (id = 1),
  rows  INTEGER NOT NULL,
  bytes INTEGER NOT NULL
);
INSERT OR IGNORE INTO retained (id, rows, bytes) VALUES (1, 0, 0);
`;
const PAGE = 512;

interface Row {
  seq: number;
  org: string;
  topic: string;
  body: string;
}

/**
 * The embedded bus: a bounded table in its own SQLite file (not the read store's, whose write lock
 * and schema cache serve the projections). `seq` is AUTOINCREMENT and writers are serialized, so a
 * tail reading `seq > last` never skips a row (the event store's argument, sqlite-event-store.ts).
 * Each publish deletes what falls out of the bound in the same transaction. Durability is not needed
 * (ephemeral), so commits do not sync.
 */
export class SqliteNotificationBus implements NotificationBus {
  private readonly db: Database.Database;
  private readonly wakeKey: string;
  private readonly maxRows: number;
  private readonly maxBytes: number;
  private readonly pollIntervalMs: number;
  private readonly listeners = new Listeners<number>();
  private readonly insert: Database.Transaction<(org: string, topic: string, body: string) => void>;
  private readonly pageAfter: Database.Statement<[number], Row>;
  private readonly maxSeq: Database.Statement<[], number | null>;
  private last = 0;
  private tailing = false;
  private wake: (() => void) | undefined;
  private closed = false;

  constructor(options: SqliteNotificationBusOptions) {
    this.wakeKey = resolvePath(options.file);
    this.maxRows = options.maxRows ?? 10_000;
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.pollIntervalMs = options.pollIntervalMs ?? 10;
    this.db = openSqlite(options.file, { timeout: 5000 });
    enableWal(this.db, 5000);
    this.db.pragma('synchronous = OFF');
    this.db.exec(SCHEMA);
    const insertRow = this.db.prepare<[string, string, string, number]>('INSERT INTO notifications (org, topic, body, bytes) VALUES (?, ?, ?, ?)');
    const totals = this.db.prepare<[], { rows: number; bytes: number }>('SELECT rows, bytes FROM retained WHERE id = 1');
    const setTotals = this.db.prepare<[number, number]>('UPDATE retained SET rows = ?, bytes = ? WHERE id = 1');
    const oldest = this.db.prepare<[], { seq: number; bytes: number }>('SELECT seq, bytes FROM notifications ORDER BY seq LIMIT 1');
    const drop = this.db.prepare<[number]>('DELETE FROM notifications WHERE seq = ?');
    // Running totals make the trim cost what it deletes (usually one row), never a scan.
    this.insert = this.db.transaction((org: string, topic: string, body: string) => {
      const size = Buffer.byteLength(body);
      insertRow.run(org, topic, body, size);
      let { rows, bytes } = totals.get()!;
      rows += 1;
      bytes += size;
      while (rows > this.maxRows || (bytes > this.maxBytes && rows > 1)) {
        const row = oldest.get()!;
        drop.run(row.seq);
        rows -= 1;
        bytes -= row.bytes;
      }
      setTotals.run(rows, bytes);
    });
    // A literal LIMIT: SQLite re-prepares a statement whose bound LIMIT changes (sqlite-event-store.ts).
    this.pageAfter = this.db.prepare<[number], Row>(`SELECT seq, org, topic, body FROM notifications WHERE seq > ? ORDER BY seq LIMIT ${PAGE}`);
    this.maxSeq = this.db.prepare<[], number | null>('SELECT MAX(seq) FROM notifications').pluck();
  }

  async publish(org: string, topic: string, notification: NotificationBody): Promise<void> {
    if (this.closed) throw new Error('SqliteNotificationBus is closed');
    this.insert(org, topic, encodeNotification(notification));
    published.emit(this.wakeKey);
  }

  async subscribe(org: string, options: BusSubscribeOptions): Promise<BusSubscription> {
    if (this.closed) throw new Error('SqliteNotificationBus is closed');
    // Rows up to the current maximum were published before this subscription: never delivered to it.
    const listener: Listener<number> = { ...options, org, from: this.maxSeq.get() ?? 0 };
    this.listeners.add(listener);
    if (!this.tailing) {
      this.last = listener.from;
      this.tailing = true;
      void this.tail();
    }
    return {
      close: () => {
        // The last one out stops the poll now rather than at its next wake-up.
        if (this.listeners.delete(listener) && this.listeners.size === 0) this.wake?.();
      },
    };
  }

  async sync(): Promise<void> {
    // Reads are synchronous and the tail only yields while it waits, so draining here cannot interleave with it.
    if (this.tailing && !this.closed) while (this.deliverPage() > 0);
  }

  /** Number of live subscriptions in this instance (tests check that closing frees them). */
  get subscriberCount(): number {
    return this.listeners.size;
  }

  /** True while the poll loop runs; it stops with the last subscription. */
  get isTailing(): boolean {
    return this.tailing;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const listener of this.listeners.all()) this.listeners.delete(listener);
    this.wake?.();
    this.db.close();
  }

  private async tail(): Promise<void> {
    try {
      while (!this.closed && this.listeners.size > 0) {
        if (this.deliverPage() === 0) await this.waitForPublish();
      }
    } finally {
      this.tailing = false;
    }
  }

  /** Delivers the next page after the last row delivered; answers how many rows it read. */
  private deliverPage(): number {
    const rows = this.pageAfter.all(this.last);
    for (const row of rows) {
      this.last = row.seq;
      const notification: BusNotification = { org: row.org, topic: row.topic, notification: JSON.parse(row.body) as NotificationBody };
      this.listeners.deliver(notification, (listener) => row.seq > listener.from);
    }
    return rows.length;
  }

  private waitForPublish(): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        published.off(this.wakeKey, done);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, this.pollIntervalMs);
      published.on(this.wakeKey, done);
      this.wake = done;
    });
  }
}
