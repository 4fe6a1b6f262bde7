/**
 * Content-addressed blob storage (session artifacts): content is stored under the sha256 of its
 * bytes, so a name can never point at other content and a second upload of the same bytes is a
 * no-op. Adapters stream: none holds a whole blob in memory (ARCHITECTURE.md "Blobs").
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { DomainError } from '@svc/domain/shared/domain-error';

/** Lower-case hex sha256, as blobs are named. */
export const SHA256_HEX = /^[0-9a-f]{64}$/;

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
   * Stores `content` under `sha256` once its bytes hash to it. A mismatch or an over-limit size
   * stores nothing and throws INVALID_ARGUMENT. `created` is false when the blob already existed.
   */
  put(sha256: string, content: AsyncIterable<Uint8Array>, options: PutOptions): Promise<BlobInfo & { created: boolean }>;
  /** The blob's size, or null when it was never stored. */
  stat(sha256: string): Promise<BlobInfo | null>;
  /** The blob's bytes as a stream, or null when it was never stored. */
  get(sha256: string): Promise<Readable | null>;
  close(): Promise<void>;
}

export const BLOB_STORE = Symbol('BLOB_STORE');

export function checkSha256(sha256: string, field = 'sha256'): string {
  if (!SHA256_HEX.test(sha256)) throw new DomainError('INVALID_ARGUMENT', `${field} must be 64 lower-case hexadecimal digits (a sha256), got '${sha256}'`);
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
