/**
 * One MongoClient per process and URL, shared by the read store, the notification bus and the blob
 * store: the driver's client is a connection pool with its own monitoring, so three of them meant
 * three pools and three sets of heartbeats against the same deployment. Each user holds a lease;
 * the client closes when the last lease is released.
 */
import { MongoClient } from 'mongodb';

export interface MongoClientLease {
  readonly client: MongoClient;
  /** Gives the lease back; the last one closes the client. Idempotent. */
  release(): Promise<void>;
}

interface Shared {
  connecting: Promise<MongoClient>;
  leases: number;
}

const shared = new Map<string, Shared>();

/** A lease on the process's client for `url`, connected; `connect` stands in for the driver in tests. */
export async function leaseMongoClient(url: string, connect: (url: string) => Promise<MongoClient> = (u) => new MongoClient(u).connect()): Promise<MongoClientLease> {
  let entry = shared.get(url);
  if (!entry) {
    const created: Shared = { connecting: connect(url), leases: 0 };
    entry = created;
    shared.set(url, created);
    // A failed connection is not kept: the next lease tries again.
    created.connecting.catch(() => {
      if (shared.get(url) === created) shared.delete(url);
    });
  }
  entry.leases++;
  let client: MongoClient;
  try {
    client = await entry.connecting;
  } catch (error) {
    entry.leases--;
    throw error;
  }
  const held = entry;
  let released = false;
  return {
    client,
    release: async () => {
      if (released) return;
      released = true;
      if (--held.leases > 0) return;
      if (shared.get(url) === held) shared.delete(url);
      await client.close();
    },
  };
}
