import { join } from 'node:path';
import type { BlobStore } from './blob-store.port';
import { FileBlobStore } from './file-blob-store';
import { MongoBlobStore } from './mongo-blob-store';

export * from './blob-store.port';
export { FileBlobStore } from './file-blob-store';
export { MongoBlobStore, type MongoBlobStoreOptions } from './mongo-blob-store';

/** GridFS beside the read store when MONGODB_URL is set, else files under `${SVC_DATA_DIR}/blobs`. */
export async function createBlobStore(env: { MONGODB_URL?: string; SVC_DATA_DIR: string }): Promise<BlobStore> {
  if (env.MONGODB_URL) return MongoBlobStore.create({ url: env.MONGODB_URL });
  return new FileBlobStore(join(env.SVC_DATA_DIR, 'blobs'));
}
