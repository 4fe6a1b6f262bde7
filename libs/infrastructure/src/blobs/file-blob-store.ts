/**
 * The embedded blob store: one file per key, `<dir>/<first two hex digits>/<sha256>` for a bare
 * sha256 and `<dir>/held/<org>/<upload id>/<sha256>` for an organization's upload. A put
 * writes a temporary file while hashing, syncs it, and renames it into place only when the hash
 * matches; a failed put deletes its temporary file. Rename is atomic, so a reader sees a whole blob
 * or none, and two puts of the same content both end with the same file.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { type BlobInfo, type BlobStore, checkBlobKey, hashWhileCopying, isBlobKey, type PutOptions, shaOfKey } from './blob-store.port';

export class FileBlobStore implements BlobStore {
  private readonly tmp: string;

  constructor(private readonly dir: string) {
    this.tmp = join(dir, 'tmp');
  }

  /** Keys are checked against a closed alphabet (blob-store.port.ts), so a path never leaves `dir`. */
  private pathOf(key: string): string {
    const sha256 = shaOfKey(key);
    return key === sha256 ? join(this.dir, sha256.slice(0, 2), sha256) : join(this.dir, 'held', ...key.split('/'));
  }

  async put(key: string, content: AsyncIterable<Uint8Array>, options: PutOptions): Promise<BlobInfo & { created: boolean }> {
    checkBlobKey(key);
    const sha256 = shaOfKey(key);
    await mkdir(this.tmp, { recursive: true });
    const temporary = join(this.tmp, `${sha256}.${randomUUID()}`);
    const file = await open(temporary, 'wx');
    let closed = false;
    try {
      const size = await hashWhileCopying(sha256, content, options.maxBytes, async (chunk) => void (await file.write(chunk)));
      await file.sync();
      await file.close();
      closed = true;
      const existed = await this.stat(key);
      const target = this.pathOf(key);
      await mkdir(dirname(target), { recursive: true });
      await rename(temporary, target);
      await syncDirectory(dirname(target));
      return { sha256, size, created: existed === null };
    } catch (error) {
      if (!closed) await file.close().catch(() => undefined);
      await rm(temporary, { force: true });
      throw error;
    }
  }

  async stat(key: string): Promise<BlobInfo | null> {
    if (!isBlobKey(key)) return null;
    try {
      const info = await stat(this.pathOf(key));
      return { sha256: shaOfKey(key), size: info.size };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async get(key: string): Promise<Readable | null> {
    if ((await this.stat(key)) === null) return null;
    return createReadStream(this.pathOf(key));
  }

  async delete(key: string): Promise<void> {
    checkBlobKey(key);
    const path = this.pathOf(key);
    await rm(path, { force: true });
    // An upload's own directory held only this file: remove it (an organization's folder stays).
    if (key !== shaOfKey(key)) await rmdir(dirname(path)).catch(() => undefined);
  }

  /** Temporary files last written before `before`: a put whose process died before it could delete its own. */
  async sweepInterrupted(before: Date): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.tmp);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    let removed = 0;
    for (const name of names) {
      const path = join(this.tmp, name);
      const info = await stat(path).catch(() => null);
      if (info === null || info.mtimeMs >= before.getTime()) continue;
      await rm(path, { force: true });
      removed++;
    }
    return removed;
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
