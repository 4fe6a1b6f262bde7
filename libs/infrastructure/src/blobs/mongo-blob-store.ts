/**
 * The MongoDB blob store: GridFS (bucket `blobs`), each blob a GridFS file whose filename is its
 * sha256. A put streams into an upload stream while hashing and finishes the file (writes its
 * files document) only when the hash matches; otherwise it aborts, which deletes the chunks written
 * so far. Two concurrent puts of the same content may leave two files of one name and identical
 * bytes: reads take either, which is harmless.
 */
import { GridFSBucket, MongoClient, type GridFSBucketWriteStream } from 'mongodb';
import type { Readable } from 'node:stream';
import { once } from 'node:events';
import { type BlobInfo, type BlobStore, checkSha256, hashWhileCopying, type PutOptions, SHA256_HEX } from './blob-store.port';

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

  async put(sha256: string, content: AsyncIterable<Uint8Array>, options: PutOptions): Promise<BlobInfo & { created: boolean }> {
    checkSha256(sha256);
    const upload = this.bucket.openUploadStream(sha256, { metadata: { sha256 } });
    let size: number;
    try {
      size = await hashWhileCopying(sha256, content, options.maxBytes, (chunk) => write(upload, chunk));
    } catch (error) {
      await upload.abort().catch(() => undefined);
      throw error;
    }
    if ((await this.stat(sha256)) !== null) {
      // Already stored: drop this copy instead of keeping a second file of one name.
      await upload.abort();
      return { sha256, size, created: false };
    }
    upload.end();
    await once(upload, 'finish');
    return { sha256, size, created: true };
  }

  async stat(sha256: string): Promise<BlobInfo | null> {
    if (!SHA256_HEX.test(sha256)) return null;
    const file = await this.bucket.find({ filename: sha256 }, { limit: 1 }).next();
    return file ? { sha256, size: file.length } : null;
  }

  async get(sha256: string): Promise<Readable | null> {
    if ((await this.stat(sha256)) === null) return null;
    return this.bucket.openDownloadStreamByName(sha256);
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
