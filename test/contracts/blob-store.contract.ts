/**
 * What every blob store adapter must do (libs/infrastructure/src/blobs): content stored by its
 * sha256 and read back as a stream; a hash mismatch or an over-limit size stores nothing; a
 * second put of the same content is a no-op; content flows through in chunks, never whole.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { type BlobStore, uploadBlobKey } from '@svc/infrastructure/blobs';

export interface BlobStoreFixture {
  store: BlobStore;
  /** How many blobs (complete or partial) the backing store holds, temporary files included. */
  stored(): Promise<number>;
  close(): Promise<void>;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function* chunks(bytes: Buffer, size = 64 * 1024): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

export function describeBlobStoreContract(label: string, open: () => Promise<BlobStoreFixture>): void {
  describe(`BlobStore contract: ${label}`, () => {
    let fixture: BlobStoreFixture;
    let store: BlobStore;
    beforeEach(async () => {
      fixture = await open();
      store = fixture.store;
    });
    afterEach(() => fixture.close());

    it('stores content under its sha256 and answers exists, size and the bytes', async () => {
      const bytes = randomBytes(300_000);
      const hash = sha256(bytes);
      expect(await store.stat(hash)).toBeNull();
      expect(await store.get(hash)).toBeNull();
      expect(await store.put(hash, chunks(bytes), { maxBytes: 1 << 20 })).toEqual({ sha256: hash, size: bytes.length, created: true });
      expect(await store.stat(hash)).toEqual({ sha256: hash, size: bytes.length });
      expect((await readAll((await store.get(hash))!)).equals(bytes)).toBe(true);
    });

    it('stores nothing when the bytes do not hash to the name', async () => {
      const bytes = randomBytes(200_000);
      const other = sha256(randomBytes(10));
      await expect(store.put(other, chunks(bytes), { maxBytes: 1 << 20 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', reason: 'ARTIFACT_HASH_MISMATCH' });
      expect(await store.stat(other)).toBeNull();
      expect(await fixture.stored()).toBe(0);
    });

    it('stops reading and stores nothing once the content passes the limit', async () => {
      const bytes = randomBytes(100_001);
      let pulled = 0;
      async function* counted() {
        for await (const chunk of chunks(bytes, 10_000)) {
          pulled += chunk.byteLength;
          yield chunk;
        }
      }
      await expect(store.put(sha256(bytes), counted(), { maxBytes: 100_000 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', reason: 'ARTIFACT_TOO_LARGE' });
      expect(pulled).toBe(100_001);
      expect(await store.stat(sha256(bytes))).toBeNull();
      expect(await fixture.stored()).toBe(0);
      // Exactly at the limit is fine.
      const exact = bytes.subarray(0, 100_000);
      expect((await store.put(sha256(exact), chunks(exact), { maxBytes: 100_000 })).size).toBe(100_000);
    });

    it('a second put of the same content is a no-op that still checks the hash', async () => {
      const bytes = randomBytes(50_000);
      const hash = sha256(bytes);
      await store.put(hash, chunks(bytes), { maxBytes: 1 << 20 });
      expect(await store.put(hash, chunks(bytes), { maxBytes: 1 << 20 })).toEqual({ sha256: hash, size: bytes.length, created: false });
      await expect(store.put(hash, chunks(randomBytes(10)), { maxBytes: 1 << 20 })).rejects.toMatchObject({ reason: 'ARTIFACT_HASH_MISMATCH' });
      expect(await fixture.stored()).toBe(1);
      expect((await readAll((await store.get(hash))!)).equals(bytes)).toBe(true);
    });

    it('streams: an 8 MiB put made lazily never holds a whole copy, and a get yields it in chunks', async () => {
      // 8 MiB produced lazily from one 64 KiB piece: only a store that buffers would grow by the total.
      const total = 8 << 20;
      const piece = randomBytes(64 * 1024);
      const hash = createHash('sha256');
      for (let at = 0; at < total; at += piece.length) hash.update(piece);
      const digest = hash.digest('hex');
      let produced = 0;
      async function* lazy() {
        while (produced < total) {
          produced += piece.length;
          yield piece;
        }
      }
      const before = process.memoryUsage().arrayBuffers;
      await store.put(digest, lazy(), { maxBytes: total });
      expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(total);
      let reads = 0;
      let size = 0;
      for await (const part of (await store.get(digest))!) {
        reads++;
        size += (part as Buffer).length;
      }
      expect(size).toBe(total);
      expect(reads).toBeGreaterThan(1);
    });

    it('refuses a name that is not a sha256 or an upload key', async () => {
      await expect(store.put('ABC', chunks(Buffer.from('x')), { maxBytes: 10 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(await store.stat('../etc/passwd')).toBeNull();
      const hash = sha256(Buffer.from('x'));
      for (const key of [`../x/${hash}`, `acme/../../${hash}`, `Acme/00000000-0000-4000-8000-000000000000/${hash}`, `acme/${hash}`]) {
        await expect(store.put(key, chunks(Buffer.from('x')), { maxBytes: 10 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
        await expect(store.delete(key)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
        expect(await store.stat(key)).toBeNull();
      }
    });

    it("keeps each upload key apart: deleting one organization's copy leaves the other's and the bare sha256", async () => {
      const bytes = randomBytes(40_000);
      const hash = sha256(bytes);
      const acme = uploadBlobKey('acme', '7b0c6e3a-3f0e-4a8e-9b0e-1c2d3e4f5a6b', hash);
      const globex = uploadBlobKey('globex', '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0', hash);
      expect(await store.put(acme, chunks(bytes), { maxBytes: 1 << 20 })).toEqual({ sha256: hash, size: bytes.length, created: true });
      expect(await store.stat(globex)).toBeNull();
      expect(await store.stat(hash)).toBeNull();
      await store.put(globex, chunks(bytes), { maxBytes: 1 << 20 });
      await store.put(hash, chunks(bytes), { maxBytes: 1 << 20 });
      await expect(store.put(acme, chunks(randomBytes(10)), { maxBytes: 1 << 20 })).rejects.toMatchObject({ reason: 'ARTIFACT_HASH_MISMATCH' });
      expect(await fixture.stored()).toBe(3);
      await store.delete(acme);
      expect(await store.stat(acme)).toBeNull();
      expect(await store.get(acme)).toBeNull();
      expect((await readAll((await store.get(globex))!)).equals(bytes)).toBe(true);
      expect(await store.stat(hash)).toEqual({ sha256: hash, size: bytes.length });
      // Deleting what is not there is no error.
      await store.delete(acme);
      await store.delete(globex);
      await store.delete(hash);
      expect(await fixture.stored()).toBe(0);
    });
  });
}
