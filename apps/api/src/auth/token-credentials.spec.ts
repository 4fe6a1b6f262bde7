import { sanitizedIdentity, schemeToken, VerifiedTokens } from './token-credentials';

describe('token credentials', () => {
  it('takes the token of the named scheme only (case-insensitive scheme, one token)', () => {
    expect(schemeToken('Bearer abc.def.ghi', 'Bearer')).toBe('abc.def.ghi');
    expect(schemeToken('bearer abc', 'Bearer')).toBe('abc');
    expect(schemeToken('Svc-Session abc', 'Bearer')).toBeNull();
    expect(schemeToken('Bearer', 'Bearer')).toBeNull();
    expect(schemeToken('Bearer a b', 'Bearer')).toBeNull();
    expect(schemeToken(undefined, 'Bearer')).toBeNull();
    expect(schemeToken(['Bearer a'], 'Bearer')).toBeNull();
  });

  it('shows an external identity without control characters, at most 256 characters', () => {
    expect(sanitizedIdentity('runner\u0000-1\n\u202e')).toBe('runner-1');
    expect(sanitizedIdentity('x'.repeat(300))).toHaveLength(256);
  });

  it('remembers a verified token until it expires, and forgets once past its bound', () => {
    const cache = new VerifiedTokens<string>();
    cache.set('t1', 'alice', 2_000);
    expect(cache.get('t1', 1_999)).toBe('alice');
    expect(cache.get('t1', 2_000)).toBeUndefined();
    expect(cache.get('t2', 0)).toBeUndefined();
    for (let i = 0; i < 10_000; i++) cache.set(`k${i}`, 'v', 5_000);
    cache.set('last', 'v', 5_000);
    expect(cache.get('k0', 0)).toBeUndefined(); // started afresh at the bound
    expect(cache.get('last', 0)).toBe('v');
  });
});
