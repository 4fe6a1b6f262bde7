import { createHmac, randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';

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

export function verifySecret(secret: string, stored: string): boolean {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = scryptSync(secret, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return timingSafeEqual(actual, expected);
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
