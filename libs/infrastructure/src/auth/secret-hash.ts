import { createHmac, randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';

/**
 * API key secrets are stored only as a slow, salted scrypt hash (in events and read models);
 * the clear secret never leaves the request that presents it.
 */
const N = 16384;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

export function hashSecret(secret: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(secret, salt, KEY_LENGTH, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

interface StoredHash {
  salt: Buffer;
  hash: Buffer;
  options: { N: number; r: number; p: number };
}

function parseStored(stored: string): StoredHash | null {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return null;
  return { salt: Buffer.from(salt, 'base64url'), hash: Buffer.from(hash, 'base64url'), options: { N: Number(n), r: Number(r), p: Number(p) } };
}

export function verifySecret(secret: string, stored: string): boolean {
  const parsed = parseStored(stored);
  if (!parsed) return false;
  return timingSafeEqual(scryptSync(secret, parsed.salt, parsed.hash.length, parsed.options), parsed.hash);
}

/** The same check off the event loop's thread, for request paths. */
export function verifySecretAsync(secret: string, stored: string): Promise<boolean> {
  const parsed = parseStored(stored);
  if (!parsed) return Promise.resolve(false);
  return new Promise((resolve, reject) =>
    scrypt(secret, parsed.salt, parsed.hash.length, parsed.options, (error, actual) =>
      error ? reject(error) : resolve(timingSafeEqual(actual, parsed.hash)),
    ),
  );
}

/**
 * A fast keyed digest of a presented credential, used as the key of the short-lived cache of
 * verified pairs: the clear secret is never kept in memory beyond the request, and the digest is
 * useless outside this process because the key is random per process.
 */
export class CredentialDigest {
  private readonly key = randomBytes(32);

  digest(username: string, secret: string): string {
    return createHmac('sha256', this.key).update(username).update('\0').update(secret).digest('base64url');
  }
}
