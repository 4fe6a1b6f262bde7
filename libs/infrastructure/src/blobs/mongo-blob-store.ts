/**
 * The MongoDB blob store: GridFS (bucket `blobs`), each blob a GridFS file whose filename is its
 * key (blob-store.port.ts). A put of a key already stored only checks the bytes (nothing is
 * uploaded); otherwise it streams into an upload stream while hashing and finishes the file (writes
 * its files document) only when the hash matches, else it aborts, which deletes the chunks written
 * so far. Two concurrent puts of the same content may leave two files of one name and identical
 * bytes: reads take either, which is harmless. A process that dies mid-upload leaves chunks with
 * no files document: sweepInterrupted removes them.
 */
import { type Db, GridFSBucket, MongoRuntimeError, ObjectId, type GridFSBucketWriteStream, type GridFSChunk, type GridFSFile } from 'mongodb';
import { leaseMongoClient } from '../stores/mongo-client';
import type { Readable } from 'node:stream';
import { once } from 'node:events';
import { type BlobInfo, type BlobStore, checkBlobKey, hashWhileCopying, isBlobKey, type PutOptions, shaOfKey } from './blob-store.port';

export interface MongoBlobStoreOptions {
  url: string;
  dbName?: string;
  bucketName?: string;
}

/** Interrupted uploads removed per sweep, at most: the next sweep goes on. */
const SWEEP_BATCH = 1000;

export class MongoBlobStore implements BlobStore {
  private readonly bucket: GridFSBucket;

  /** `create` connects; tests hand in a Db that behaves as the driver's. */
  constructor(
    /** Gives back the process's shared client (stores/mongo-client.ts). */
    private readonly release: () => Promise<void>,
    private readonly db: Db,
    private readonly bucketName = 'blobs',
  ) {
    this.bucket = new GridFSBucket(db, { bucketName });
  }

  static async create(options: MongoBlobStoreOptions): Promise<MongoBlobStore> {
    const lease = await leaseMongoClient(options.url);
    return new MongoBlobStore(lease.release, lease.client.db(options.dbName), options.bucketName);
  }

  async put(key: string, content: AsyncIterable<Uint8Array>, options: PutOptions): Promise<BlobInfo & { created: boolean }> {
    checkBlobKey(key);
    const sha256 = shaOfKey(key);
    if ((await this.stat(key)) !== null) {
      // Already stored: the bytes must still hash to the key and fit the limit, but none is written.
      const size = await hashWhileCopying(sha256, content, options.maxBytes, async () => undefined);
      return { sha256, size, created: false };
    }
    const upload = this.bucket.openUploadStream(key, { metadata: { sha256 } });
    let size: number;
    try {
      size = await hashWhileCopying(sha256, content, options.maxBytes, (chunk) => write(upload, chunk));
    } catch (error) {
      await upload.abort().catch(() => undefined);
      throw error;
    }
    if ((await this.stat(key)) !== null) {
      // Stored meanwhile by a concurrent put: drop this copy instead of keeping a second file of one name.
      await upload.abort();
      return { sha256, size, created: false };
    }
    upload.end();
    await once(upload, 'finish');
    return { sha256, size, created: true };
  }

  async stat(key: string): Promise<BlobInfo | null> {
    if (!isBlobKey(key)) return null;
    const file = await this.bucket.find({ filename: key }, { limit: 1 }).next();
    return file ? { sha256: shaOfKey(key), size: file.length } : null;
  }

  async get(key: string): Promise<Readable | null> {
    if ((await this.stat(key)) === null) return null;
    return this.bucket.openDownloadStreamByName(key);
  }

  /** Every file of the name (two concurrent puts may have left two): GridFSBucket.delete removes its chunks too. */
  async delete(key: string): Promise<void> {
    checkBlobKey(key);
    for await (const file of this.bucket.find({ filename: key }, { projection: { _id: 1 } })) {
      await this.bucket.delete(file._id).catch((error: unknown) => {
        // Deleted meanwhile by another process: GridFSBucket.delete removes the chunks, then throws this.
        if (!(error instanceof MongoRuntimeError && error.message.startsWith('File not found for id'))) throw error;
      });
    }
  }

  /**
   * Chunks whose files document does not exist, of uploads begun before `before` (an upload's id is
   * an ObjectId made when it opened, so its time is the upload's start): what a process that died
   * mid-upload left. A running upload writes its files document only at its end, hence the age.
   */
  async sweepInterrupted(before: Date): Promise<number> {
    const chunks = this.db.collection<GridFSChunk>(`${this.bucketName}.chunks`);
    const orphans = await chunks
      .aggregate<{ _id: ObjectId }>([
        { $match: { files_id: { $lt: ObjectId.createFromTime(Math.floor(before.getTime() / 1000)) } } },
        { $group: { _id: '$files_id' } },
        { $lookup: { from: `${this.bucketName}.files`, localField: '_id', foreignField: '_id', as: 'file' } },
        { $match: { file: { $size: 0 } } },
        { $limit: SWEEP_BATCH },
        { $project: { _id: 1 } },
      ])
      .toArray();
    if (orphans.length === 0) return 0;
    // A files document written since (an upload that finished after all) keeps its chunks.
    const ids = orphans.map((o) => o._id);
    const finished = new Set((await this.db.collection<GridFSFile>(`${this.bucketName}.files`).find({ _id: { $in: ids } }, { projection: { _id: 1 } }).toArray()).map((f) => f._id.toHexString()));
    const interrupted = ids.filter((id) => !finished.has(id.toHexString()));
    if (interrupted.length > 0) await chunks.deleteMany({ files_id: { $in: interrupted } });
    return interrupted.length;
  }

  async close(): Promise<void> {
    await this.release();
  }
}

/** One chunk, honouring backpressure: waits for `drain` when the stream's buffer is full. */
async function write(stream: GridFSBucketWriteStream, chunk: Uint8Array): Promise<void> {
  if (stream.write(chunk)) return;
  await once(stream, 'drain'); // rejects on 'error'
}
