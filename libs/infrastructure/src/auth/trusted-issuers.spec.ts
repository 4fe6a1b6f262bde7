import { type CryptoKey, exportSPKI, generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import { CLOCK_TOLERANCE_S, TokenRejected, TrustedIssuers } from './trusted-issuers';

const ISSUER = 'https://idp.example';
const now = () => Math.floor(Date.now() / 1000);

describe('TrustedIssuers (bearer and workload JWT verification)', () => {
  let key: CryptoKey;
  let other: CryptoKey;
  let issuers: TrustedIssuers;

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256');
    key = pair.privateKey;
    other = (await generateKeyPair('ES256')).privateKey;
    issuers = new TrustedIssuers([{ issuer: ISSUER, audience: 'svc', publicKeyPem: await exportSPKI(pair.publicKey), organizations: ['acme'] }], 'bearer issuer');
  });

  const sign = (claims: Record<string, unknown> = {}, options: { key?: CryptoKey; exp?: number; nbf?: number; iss?: string; aud?: string } = {}) => {
    const jwt = new SignJWT({ org: 'acme', ...claims })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(options.iss ?? ISSUER)
      .setAudience(options.aud ?? 'svc')
      .setSubject('alice')
      .setExpirationTime(options.exp ?? now() + 300);
    if (options.nbf !== undefined) jwt.setNotBefore(options.nbf);
    return jwt.sign(options.key ?? key);
  };

  it('accepts a token signed by the configured key with the right iss and aud', async () => {
    await expect(issuers.verify(await sign())).resolves.toMatchObject({ iss: ISSUER, sub: 'alice', org: 'acme' });
  });

  it('accepts a token within the clock tolerance of its exp and nbf', async () => {
    await expect(issuers.verify(await sign({}, { exp: now() - CLOCK_TOLERANCE_S + 5, nbf: now() + CLOCK_TOLERANCE_S - 5 }))).resolves.toBeDefined();
  });

  it.each([
    ['expired', { exp: now() - CLOCK_TOLERANCE_S - 60 }, /exp/],
    ['not yet valid (nbf)', { nbf: now() + CLOCK_TOLERANCE_S + 60 }, /nbf/],
    ['for another audience', { aud: 'other' }, /aud/],
    ['from an unknown issuer', { iss: 'https://evil.example' }, /issuer not trusted/],
  ])('refuses a token %s', async (_, options, why) => {
    await expect(issuers.verify(await sign({}, options))).rejects.toThrow(why);
  });

  it('refuses a token signed by another key (forged)', async () => {
    await expect(issuers.verify(await sign({}, { key: other }))).rejects.toThrow(TokenRejected);
  });

  it('refuses alg none', async () => {
    const token = new UnsecuredJWT({ org: 'acme' }).setIssuer(ISSUER).setAudience('svc').setSubject('alice').setExpirationTime('5m').encode();
    await expect(issuers.verify(token)).rejects.toThrow(TokenRejected);
  });

  it('refuses a token whose signature was altered, and garbage', async () => {
    const token = await sign();
    const tampered = `${token.slice(0, -4)}${token.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    await expect(issuers.verify(tampered)).rejects.toThrow(TokenRejected);
    await expect(issuers.verify('not.a.jwt')).rejects.toThrow(TokenRejected);
    await expect(issuers.verify('x'.repeat(10_000))).rejects.toThrow(/longer than/);
  });

  it('refuses a token with no exp', async () => {
    const token = await new SignJWT({}).setProtectedHeader({ alg: 'ES256' }).setIssuer(ISSUER).setAudience('svc').setSubject('alice').sign(key);
    await expect(issuers.verify(token)).rejects.toThrow(/exp/);
  });

  it('refuses a token whose payload was swapped to another organization', async () => {
    const [header, , signature] = (await sign()).split('.');
    const payload = Buffer.from(JSON.stringify({ iss: ISSUER, aud: 'svc', sub: 'alice', org: 'globex', exp: now() + 300 })).toString('base64url');
    await expect(issuers.verify(`${header}.${payload}.${signature}`)).rejects.toThrow(TokenRejected);
  });

  it('reaches only the organizations the issuer is bound to', () => {
    expect([issuers.reaches(ISSUER, 'acme'), issuers.reaches(ISSUER, 'globex'), issuers.reaches('https://evil.example', 'acme')]).toEqual([true, false, false]);
    expect(issuers.organizationsOf(ISSUER)).toEqual(['acme']);
  });

  it('names a configured key that is not a PEM public key', () => {
    expect(() => new TrustedIssuers([{ issuer: ISSUER, publicKeyPem: 'nope', organizations: ['acme'] }], 'workload issuer')).toThrow(/workload issuer 'https:\/\/idp.example'/);
  });
});
