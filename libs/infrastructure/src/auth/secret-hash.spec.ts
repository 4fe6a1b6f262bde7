import { randomBytes, scryptSync } from 'node:crypto';
import { CredentialDigest, hashSecret, hashSecretAsync, needsRehash, SCRYPT_COST, unmatchableHash, verifySecret, verifySecretAsync } from './secret-hash';

/** A hash in the first stored format (N=2^14, parameters as bare numbers), as older events hold. */
function legacyHash(secret: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(secret, salt, 32, { N: 16384, r: 8, p: 1 });
  return `scrypt$16384$8$1$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

describe('API key secret hashes', () => {
  it("store OWASP's scrypt cost (N=2^17, r=8, p=1) with each hash, and verify the secret only", async () => {
    expect(SCRYPT_COST).toEqual({ N: 131072, r: 8, p: 1 });
    const stored = hashSecret('s3cret');
    expect(stored).toMatch(/^\$scrypt\$N=131072,r=8,p=1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect([verifySecret('s3cret', stored), verifySecret('s3cret!', stored)]).toEqual([true, false]);
    const asyncStored = await hashSecretAsync('s3cret');
    expect(asyncStored).not.toBe(stored); // salted
    expect([await verifySecretAsync('s3cret', asyncStored), await verifySecretAsync('other', asyncStored)]).toEqual([true, false]);
    expect(needsRehash(stored)).toBe(false);
  });

  it('offer an unmatchable hash at today\'s cost, for key usernames that do not exist', async () => {
    const dummy = unmatchableHash();
    expect(dummy).toMatch(/^\$scrypt\$N=131072,r=8,p=1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(needsRehash(dummy)).toBe(false);
    expect(await verifySecretAsync('', dummy)).toBe(false);
  });

  it('still verify hashes of the first format, which need a rehash', async () => {
    const old = legacyHash('s3cret');
    expect([verifySecret('s3cret', old), await verifySecretAsync('s3cret', old), verifySecret('nope', old)]).toEqual([true, true, false]);
    expect(needsRehash(old)).toBe(true);
  });

  it('ask for a rehash of a current-format hash below today\'s cost', () => {
    const salt = randomBytes(16);
    const weak = `$scrypt$N=16384,r=8,p=1$${salt.toString('base64url')}$${scryptSync('s', salt, 32, { N: 16384, r: 8, p: 1 }).toString('base64url')}`;
    expect([verifySecret('s', weak), needsRehash(weak)]).toEqual([true, true]);
  });

  it('refuse a garbled or absurdly costly stored hash instead of running it', async () => {
    for (const stored of ['', 'plain', '$scrypt$N=abc$x$y', `$scrypt$N=${2 ** 30},r=8,p=1$AAAA$AAAA`]) {
      expect([stored, verifySecret('s', stored), await verifySecretAsync('s', stored), needsRehash(stored)]).toEqual([stored, false, false, false]);
    }
  });
});

describe('CredentialDigest', () => {
  it('names a pair the same way in one process, and tells pairs and processes apart', () => {
    const digest = new CredentialDigest();
    const alice = digest.digest('alice-key', 'alice-secret');
    expect(digest.digest('alice-key', 'alice-secret')).toBe(alice);
    expect(alice).not.toContain('alice');
    expect(digest.digest('alice-key', 'alice-secreT')).not.toBe(alice);
    expect(digest.digest('alice-ke', 'yalice-secret')).not.toBe(alice);
    expect(new CredentialDigest().digest('alice-key', 'alice-secret')).not.toBe(alice);
  });
});
