import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '@svc/infrastructure/sqlite/driver';
import { MongoClient } from 'mongodb';
import { MongoNotificationBus, SqliteNotificationBus, createNotificationBus, type NotificationBus } from '@svc/infrastructure/notifications';
import { describeNotificationBusContract } from './notification-bus.contract';

const SQLITE_BOUND = 50;

describeNotificationBusContract('SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-notification-bus-'));
  const file = join(dir, 'notifications.db');
  const bus = new SqliteNotificationBus({ file, maxRows: SQLITE_BOUND });
  return {
    bus,
    openAnother: async () => new SqliteNotificationBus({ file, maxRows: SQLITE_BOUND }),
    spawnEnv: { SVC_DATA_DIR: dir, MONGODB_URL: '' },
    retentionBound: SQLITE_BOUND,
    retained: async () => {
      const db = openSqlite(file, { readonly: true });
      try {
        return db.prepare('SELECT COUNT(*) FROM notifications').pluck().get() as number;
      } finally {
        db.close();
      }
    },
    isTailing: (b: NotificationBus) => (b as SqliteNotificationBus).isTailing,
    close: async () => {
      await bus.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

const mongoUrl = process.env.MONGODB_URL;
if (mongoUrl) {
  const MONGO_BOUND = 50;
  describeNotificationBusContract('MongoDB', async () => {
    const dbName = `svc_notification_bus_contract_${Date.now()}_${process.pid}`;
    const open = () => MongoNotificationBus.create({ url: mongoUrl, dbName, maxDocuments: MONGO_BOUND, maxAwaitTimeMS: 200 });
    const bus = await open();
    // The child process reaches the same database through the URL's path.
    const url = new URL(mongoUrl);
    url.pathname = `/${dbName}`;
    return {
      bus,
      openAnother: open,
      spawnEnv: { MONGODB_URL: url.toString(), SVC_DATA_DIR: tmpdir() },
      retentionBound: MONGO_BOUND,
      retained: async () => {
        const client = await MongoClient.connect(mongoUrl);
        try {
          return await client.db(dbName).collection('_notifications').countDocuments();
        } finally {
          await client.close();
        }
      },
      isTailing: (b: NotificationBus) => (b as MongoNotificationBus).isTailing,
      close: async () => {
        await bus.close();
        const client = await MongoClient.connect(mongoUrl);
        try {
          await client.db(dbName).dropDatabase();
        } finally {
          await client.close();
        }
      },
    };
  });
}

describe('createNotificationBus', () => {
  it('opens notifications.db in the data directory when MONGODB_URL is not set', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-notification-bus-'));
    try {
      const bus = await createNotificationBus({ SVC_DATA_DIR: join(dir, 'nested') });
      expect(bus).toBeInstanceOf(SqliteNotificationBus);
      await bus.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SqliteNotificationBus specifics', () => {
  it('bounds the bytes it keeps as well as the rows', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-notification-bus-'));
    const file = join(dir, 'notifications.db');
    const bus = new SqliteNotificationBus({ file, maxRows: 1000, maxBytes: 10_000 });
    try {
      for (let i = 0; i < 50; i++) await bus.publish('acme', 't', { payload: 'x'.repeat(1000) });
      const db = openSqlite(file, { readonly: true });
      try {
        const [rows, bytes] = db.prepare('SELECT COUNT(*), SUM(bytes) FROM notifications').raw().get() as [number, number];
        expect(bytes).toBeLessThanOrEqual(10_000);
        expect(rows).toBeGreaterThan(5);
      } finally {
        db.close();
      }
    } finally {
      await bus.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SqliteNotificationBus sync', () => {
  it('reads rows another process wrote without waiting for the poll', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-notification-bus-'));
    const file = join(dir, 'notifications.db');
    // A poll far longer than the test: only sync can deliver what another process wrote (no in-process wake-up).
    const bus = new SqliteNotificationBus({ file, pollIntervalMs: 60_000 });
    try {
      const seen: unknown[] = [];
      await bus.subscribe('acme', { onNotification: (n) => seen.push(n.notification.payload) });
      const db = openSqlite(file);
      try {
        const insert = db.prepare('INSERT INTO notifications (org, topic, body, bytes) VALUES (?, ?, ?, ?)');
        for (const payload of ['a', 'b', 'c']) insert.run('acme', 't', JSON.stringify({ payload }), 20);
      } finally {
        db.close();
      }
      expect(seen).toEqual([]);
      await bus.sync();
      expect(seen).toEqual(['a', 'b', 'c']);
    } finally {
      await bus.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
