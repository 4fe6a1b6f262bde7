/**
 * The embedded blob store: one file per blob under `<dir>/<first two hex digits>/<sha256>`. A put
 * writes a temporary file while hashing, syncs it, and renames it into place only when the hash
 * matches; a failed put deletes its temporary file. Rename is atomic, so a reader sees a whole blob
 * or none, and two puts of the same content both end with the same file.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { type BlobInfo, type BlobStore, checkSha256, hashWhileCopying, type PutOptions } from './blob-store.port';

export class FileBlobStore implements BlobStore {
  private readonly tmp: string;

  constructor(private readonly dir: string) {
    this.tmp = join(dir, 'tmp');
  }

  private pathOf(sha256: string): string {
    return join(this.dir, sha256.slice(0, 2), sha256);
  }

  async put(sha256: string, content: AsyncIterable<Uint8Array>, options: PutOptions): Promise<BlobInfo & { created: boolean }> {
    checkSha256(sha256);
    await mkdir(this.tmp, { recursive: true });
    const temporary = join(this.tmp, `${sha256}.${randomUUID()}`);
    const file = await open(temporary, 'wx');
    let closed = false;
    try {
      const size = await hashWhileCopying(sha256, content, options.maxBytes, async (chunk) => void (await file.write(chunk)));
      await file.sync();
      await file.close();
      closed = true;
      const existed = await this.stat(sha256);
      const target = this.pathOf(sha256);
      await mkdir(join(this.dir, sha256.slice(0, 2)), { recursive: true });
      await rename(temporary, target);
      await syncDirectory(join(this.dir, sha256.slice(0, 2)));
      return { sha256, size, created: existed === null };
    } catch (error) {
      if (!closed) await file.close().catch(() => undefined);
      await rm(temporary, { force: true });
      throw error;
    }
  }

  async stat(sha256: string): Promise<BlobInfo | null> {
    if (!/^[0-9a-f]{64}$/.test(sha256)) return null;
    try {
      const info = await stat(this.pathOf(sha256));
      return { sha256, size: info.size };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async get(sha256: string): Promise<Readable | null> {
    if ((await this.stat(sha256)) === null) return null;
    return createReadStream(this.pathOf(sha256));
  }

  async close(): Promise<void> {}
}

/** The rename is durable only once the directory entry is synced too. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch {
    // Some filesystems refuse fsync on a directory; the file's own data is already synced.
  } finally {
    await handle.close();
  }
}
