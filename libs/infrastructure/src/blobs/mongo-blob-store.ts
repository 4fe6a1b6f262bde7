/**
 * The MongoDB blob store: GridFS (bucket `blobs`), each blob a GridFS file whose filename is its
 * key (blob-store.port.ts). A put streams into an upload stream while hashing and finishes the file (writes its
 * files document) only when the hash matches; otherwise it aborts, which deletes the chunks written
 * so far. Two concurrent puts of the same content may leave two files of one name and identical
 * bytes: reads take either, which is harmless.
 */
import { GridFSBucket, MongoClient, MongoRuntimeError, type GridFSBucketWriteStream } from 'mongodb';
import type { Readable } from 'node:stream';
import { once } from 'node:events';
import { type BlobInfo, type BlobStore, checkBlobKey, hashWhileCopying, isBlobKey, type PutOptions, shaOfKey } from './blob-store.port';

export interface MongoBlobStoreOptions {
  url: string;
  dbName?: string;
  bucketName?: string;
}

export class MongoBlobStore implements BlobStore {
  private constructor(
    private readonly client: MongoClient,
    private readonly bucket: GridFSBucket,
  ) {}

  static async create(options: MongoBlobStoreOptions): Promise<MongoBlobStore> {
    const client = new MongoClient(options.url);
    await client.connect();
    return new MongoBlobStore(client, new GridFSBucket(client.db(options.dbName), { bucketName: options.bucketName ?? 'blobs' }));
  }

  async put(key: string, content: AsyncIterable<Uint8Array>, options: PutOptions): Promise<BlobInfo & { created: boolean }> {
    checkBlobKey(key);
    const sha256 = shaOfKey(key);
    const upload = this.bucket.openUploadStream(key, { metadata: { sha256 } });
    let size: number;
    try {
      size = await hashWhileCopying(sha256, content, options.maxBytes, (chunk) => write(upload, chunk));
    } catch (error) {
      await upload.abort().catch(() => undefined);
      throw error;
    }
    if ((await this.stat(key)) !== null) {
      // Already stored: drop this copy instead of keeping a second file of one name.
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

  async close(): Promise<void> {
    await this.client.close();
  }
}

/** One chunk, honouring backpressure: waits for `drain` when the stream's buffer is full. */
async function write(stream: GridFSBucketWriteStream, chunk: Uint8Array): Promise<void> {
  if (stream.write(chunk)) return;
  await once(stream, 'drain'); // rejects on 'error'
}
