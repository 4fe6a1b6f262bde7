import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, ObjectId } from 'mongodb';
import { createBlobStore, FileBlobStore, MongoBlobStore } from '@svc/infrastructure/blobs';
import { describeBlobStoreContract } from './blob-store.contract';

/** Every regular file under `dir`, temporary files included. */
function countFiles(dir: string): number {
  let count = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) count += countFiles(path);
    else if (statSync(path).isFile()) count++;
  }
  return count;
}

describeBlobStoreContract('files', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-blobs-'));
  return {
    store: new FileBlobStore(dir),
    stored: async () => countFiles(dir),
    close: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

const mongoUrl = process.env.MONGODB_URL;
if (mongoUrl) {
  describeBlobStoreContract('MongoDB GridFS', async () => {
    const dbName = `svc_blob_store_contract_${Date.now()}_${process.pid}`;
    const store = await MongoBlobStore.create({ url: mongoUrl, dbName });
    const client = await MongoClient.connect(mongoUrl);
    const db = client.db(dbName);
    return {
      store,
      // A finished upload is a files document; an unfinished or aborted one would leave chunks of its own.
      stored: async () => {
        const files = (await db.collection('blobs.files').find({}, { projection: { _id: 1 } }).toArray()).map((f) => String(f._id));
        const chunked = (await db.collection('blobs.chunks').distinct('files_id')).map(String);
        return new Set([...files, ...chunked]).size;
      },
      close: async () => {
        await store.close();
        await db.dropDatabase();
        await client.close();
      },
    };
  });

  describe('MongoBlobStore.sweepInterrupted (a real server)', () => {
    it('removes the chunks of an upload interrupted long ago, and keeps a recent one and a finished file', async () => {
      const dbName = `svc_blob_sweep_${Date.now()}_${process.pid}`;
      const store = await MongoBlobStore.create({ url: mongoUrl, dbName });
      const client = await MongoClient.connect(mongoUrl);
      const db = client.db(dbName);
      try {
        const dead = ObjectId.createFromTime(Math.floor(Date.now() / 1000) - 7200);
        const running = new ObjectId();
        await db.collection('blobs.chunks').insertMany([
          { files_id: dead, n: 0, data: Buffer.from('x') },
          { files_id: running, n: 0, data: Buffer.from('y') },
        ]);
        expect(await store.sweepInterrupted(new Date(Date.now() - 3600_000))).toBe(1);
        expect((await db.collection('blobs.chunks').distinct('files_id')).map(String)).toEqual([String(running)]);
      } finally {
        await store.close();
        await db.dropDatabase();
        await client.close();
      }
    });
  });
}

describe('createBlobStore', () => {
  it('keeps files under the data directory when MONGODB_URL is not set', async () => {
    const store = await createBlobStore({ SVC_DATA_DIR: '/nonexistent-data-dir' });
    expect(store).toBeInstanceOf(FileBlobStore);
    await store.close();
  });
});
