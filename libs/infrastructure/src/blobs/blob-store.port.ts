/**
 * Content-addressed blob storage (session artifacts): content is stored under a key that ends with
 * the sha256 of its bytes, so a key can never point at other content. A key is either the bare
 * sha256 (content stored before uploads were held per organization; read-only now) or
 * `{org}/{upload id}/{sha256}`: one organization's upload, stored apart from every other
 * organization's copy of the same bytes, so deleting one organization's expired upload can never
 * take content another organization holds (docs/decisions.md, "Uploads"). Adapters stream: none
 * holds a whole blob in memory (ARCHITECTURE.md "Blobs").
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { DomainError } from '@svc/domain/shared/domain-error';

/** Lower-case hex sha256, as blobs are named. */
export const SHA256_HEX = /^[0-9a-f]{64}$/;
/** `{org}/{upload id}/{sha256}` or a bare sha256: every part from a closed alphabet, so a key is also a safe relative path. */
const BLOB_KEY = /^(?:[a-z0-9][a-z0-9-]{0,62}\/[0-9a-f-]{36}\/)?[0-9a-f]{64}$/;

export interface BlobInfo {
  sha256: string;
  size: number;
}

export interface PutOptions {
  /** The content is refused (and nothing stored) once more than this many bytes have arrived. */
  maxBytes: number;
}

export interface BlobStore {
  /**
   * Stores `content` under `key` once its bytes hash to the key's sha256. A mismatch or an over-limit
   * size stores nothing and throws INVALID_ARGUMENT. `created` is false when the key already held it.
   */
  put(key: string, content: AsyncIterable<Uint8Array>, options: PutOptions): Promise<BlobInfo & { created: boolean }>;
  /** The blob's size, or null when nothing is stored under `key`. */
  stat(key: string): Promise<BlobInfo | null>;
  /** The blob's bytes as a stream, or null when nothing is stored under `key`. */
  get(key: string): Promise<Readable | null>;
  /** Removes what is stored under `key`; nothing stored is not an error. */
  delete(key: string): Promise<void>;
  /**
   * Removes what puts left behind when their process died mid-upload (a temporary file, GridFS
   * chunks without a files document) and that began before `before`; answers how many uploads
   * it removed. A put still running is younger than any sensible `before`.
   */
  sweepInterrupted(before: Date): Promise<number>;
  close(): Promise<void>;
}

export const BLOB_STORE = Symbol('BLOB_STORE');

/** The key of one organization's upload of `sha256`. */
export function uploadBlobKey(org: string, uploadId: string, sha256: string): string {
  return checkBlobKey(`${org}/${uploadId}/${sha256}`);
}

export function isBlobKey(key: string): boolean {
  return BLOB_KEY.test(key);
}

export function checkBlobKey(key: string): string {
  if (!BLOB_KEY.test(key)) throw new DomainError('INVALID_ARGUMENT', `'${key.slice(0, 160)}' is not a blob key ({org}/{upload id}/{sha256}, or a sha256)`);
  return key;
}

/** The sha256 a key's content hashes to: its last segment. */
export function shaOfKey(key: string): string {
  return key.slice(-64);
}

export function checkSha256(sha256: string, field = 'sha256'): string {
  if (!SHA256_HEX.test(sha256)) throw new DomainError('INVALID_ARGUMENT', `${field} must be 64 lower-case hexadecimal digits (a sha256), got '${sha256.slice(0, 160)}'`);
  return sha256;
}

export function tooLarge(maxBytes: number): DomainError {
  return new DomainError('INVALID_ARGUMENT', `the artifact is larger than the limit of ${maxBytes} bytes`, 'ARTIFACT_TOO_LARGE');
}

/**
 * Feeds each chunk of `content` to `sink` while hashing and counting it; throws (before the sink
 * sees the chunk) once the size passes the limit, and when the final hash differs from `sha256`.
 * Each byte is hashed once and no chunk is kept.
 */
export async function hashWhileCopying(
  sha256: string,
  content: AsyncIterable<Uint8Array>,
  maxBytes: number,
  sink: (chunk: Uint8Array) => Promise<void>,
): Promise<number> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of content) {
    size += chunk.byteLength;
    if (size > maxBytes) throw tooLarge(maxBytes);
    hash.update(chunk);
    await sink(chunk);
  }
  const actual = hash.digest('hex');
  if (actual !== sha256) {
    throw new DomainError('INVALID_ARGUMENT', `the content's sha256 is ${actual}, not ${sha256} as named; nothing was stored`, 'ARTIFACT_HASH_MISMATCH');
  }
  return size;
}
