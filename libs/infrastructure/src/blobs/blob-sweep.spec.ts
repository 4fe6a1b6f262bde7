import { mkdtempSync, rmSync, utimesSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { type Db, ObjectId } from 'mongodb';
import { FileBlobStore } from './file-blob-store';
import { MongoBlobStore } from './mongo-blob-store';

const bytes = Buffer.from('artifact bytes');
const sha = createHash('sha256').update(bytes).digest('hex');
async function* content(): AsyncIterable<Uint8Array> {
  yield bytes;
}

/** A Db whose GridFS collections answer as the driver's would, recording every call. */
function fakeGridFs(files: Array<{ _id: ObjectId; filename: string; length: number }>, orphans: ObjectId[] = []) {
  const calls: string[] = [];
  const collection = (name: string) => ({
    find: (filter: Record<string, unknown>) => {
      calls.push(`${name}.find`);
      const matching = files.filter((f) => (filter.filename === undefined || f.filename === filter.filename) && (filter._id === undefined || (filter._id as { $in: ObjectId[] }).$in.some((id) => id.equals(f._id))));
      return { next: () => Promise.resolve(matching[0] ?? null), toArray: () => Promise.resolve(matching) };
    },
    aggregate: () => {
      calls.push(`${name}.aggregate`);
      return { toArray: () => Promise.resolve(orphans.map((_id) => ({ _id }))) };
    },
    deleteMany: (filter: { files_id: { $in: ObjectId[] } }) => {
      calls.push(`${name}.deleteMany ${filter.files_id.$in.map((id) => id.toHexString()).join(',')}`);
      return Promise.resolve({ deletedCount: 1 });
    },
    insertOne: () => {
      calls.push(`${name}.insertOne`);
      return Promise.resolve({});
    },
    createIndex: () => {
      calls.push(`${name}.createIndex`);
      return Promise.resolve('');
    },
    findOne: () => Promise.resolve(null),
    listIndexes: () => ({ toArray: () => Promise.resolve([]) }),
  });
  return { db: { collection } as unknown as Db, calls };
}

describe('MongoBlobStore (a fake of GridFS)', () => {
  it('a put of a key already stored checks the bytes and uploads nothing', async () => {
    const { db, calls } = fakeGridFs([{ _id: new ObjectId(), filename: sha, length: bytes.length }]);
    const store = new MongoBlobStore(() => Promise.resolve(), db);
    await expect(store.put(sha, content(), { maxBytes: 1024 })).resolves.toEqual({ sha256: sha, size: bytes.length, created: false });
    expect(calls).toEqual(['blobs.files.find']);
    // The bytes are still checked against the key.
    await expect(store.put(sha, (async function* () { yield Buffer.from('other'); })(), { maxBytes: 1024 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('sweeps the chunks of interrupted uploads, but not of one that finished meanwhile', async () => {
    const dead = ObjectId.createFromTime(1_700_000_000);
    const finishedLate = ObjectId.createFromTime(1_700_000_001);
    const { db, calls } = fakeGridFs([{ _id: finishedLate, filename: sha, length: 3 }], [dead, finishedLate]);
    const store = new MongoBlobStore(() => Promise.resolve(), db);
    await expect(store.sweepInterrupted(new Date(1_800_000_000_000))).resolves.toBe(1);
    expect(calls).toEqual(['blobs.chunks.aggregate', 'blobs.files.find', `blobs.chunks.deleteMany ${dead.toHexString()}`]);
  });
});

describe('FileBlobStore.sweepInterrupted', () => {
  it('removes temporary files older than the cutoff and leaves a put still running', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-blob-sweep-'));
    try {
      const store = new FileBlobStore(dir);
      await expect(store.sweepInterrupted(new Date())).resolves.toBe(0); // no tmp directory yet
      mkdirSync(join(dir, 'tmp'));
      const old = join(dir, 'tmp', `${sha}.dead`);
      const running = join(dir, 'tmp', `${sha}.running`);
      writeFileSync(old, 'partial');
      writeFileSync(running, 'partial');
      const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
      utimesSync(old, twoHoursAgo, twoHoursAgo);
      await expect(store.sweepInterrupted(new Date(Date.now() - 3600_000))).resolves.toBe(1);
      expect([existsSync(old), existsSync(running)]).toEqual([false, true]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
