import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { decodeProtectedHeader, SignJWT, UnsecuredJWT } from 'jose';
import { loadSigningKey, SIGNING_KEY_FILE, type SigningKey } from './session-signing-key';
import { SESSION_TOKEN_ISSUER, SessionTokens } from './session-tokens';
import { CLOCK_TOLERANCE_S, TokenRejected } from './trusted-issuers';

const CLAIMS = { org: 'acme', subject: 'agents/triage', session: 'agents/triage/sessions/s1', provider: 'https://workload.example', externalIdentity: 'runner-7' };
const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'svc-key-'));

describe('SessionTokens (mint and verify agent session tokens)', () => {
  let key: SigningKey;
  let tokens: SessionTokens;
  beforeAll(async () => {
    key = await loadSigningKey({ env: {}, dataDir: tempDir(), serverStores: false });
    tokens = new SessionTokens(key);
  });

  it('mints an ES256 token with our kid that verifies back to the same claims, expiring after the lifetime', async () => {
    const now = new Date();
    const { token, expiresAt } = await tokens.mint(CLAIMS, now);
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'ES256', kid: key.publicJwk.kid });
    expect(expiresAt.getTime() - Math.floor(now.getTime() / 1000) * 1000).toBe(15 * 60 * 1000);
    await expect(tokens.verify(token)).resolves.toEqual({ ...CLAIMS, expiresAt });
  });

  it('refuses an expired token (past the clock tolerance)', async () => {
    const { token } = await tokens.mint(CLAIMS, new Date(Date.now() - (15 * 60 + CLOCK_TOLERANCE_S + 60) * 1000));
    await expect(tokens.verify(token)).rejects.toThrow(/exp/);
  });

  it('refuses a token signed by another key under our kid (forged) and one with an unknown kid (foreign)', async () => {
    const foreign = new SessionTokens(await loadSigningKey({ env: {}, dataDir: tempDir(), serverStores: false }));
    const { token } = await foreign.mint(CLAIMS);
    await expect(tokens.verify(token)).rejects.toThrow(TokenRejected);
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const forged = await new SignJWT({ org: 'globex', session: CLAIMS.session })
      .setProtectedHeader({ alg: 'ES256', kid: key.publicJwk.kid })
      .setIssuer(SESSION_TOKEN_ISSUER)
      .setSubject(CLAIMS.subject)
      .setExpirationTime('5m')
      .sign(privateKey);
    await expect(tokens.verify(forged)).rejects.toThrow(TokenRejected);
  });

  it('refuses alg none and another issuer signed with our own key', async () => {
    const none = new UnsecuredJWT({ org: 'acme', session: CLAIMS.session }).setIssuer(SESSION_TOKEN_ISSUER).setSubject(CLAIMS.subject).setExpirationTime('5m').encode();
    await expect(tokens.verify(none)).rejects.toThrow(TokenRejected);
    const otherIssuer = await new SignJWT({ org: 'acme', session: CLAIMS.session })
      .setProtectedHeader({ alg: 'ES256', kid: key.publicJwk.kid })
      .setIssuer('https://elsewhere')
      .setSubject(CLAIMS.subject)
      .setExpirationTime('5m')
      .sign(key.privateKey);
    await expect(tokens.verify(otherIssuer)).rejects.toThrow(/iss/);
  });

  it('refuses a token whose session is not one of its subject agent', async () => {
    const { token } = await tokens.mint({ ...CLAIMS, session: 'agents/other/sessions/s1' });
    await expect(tokens.verify(token)).rejects.toThrow(/claims/);
  });

  it('publishes only the public half in the JWKS', () => {
    const [jwk] = tokens.jwks().keys;
    expect(jwk).toEqual({ kty: 'EC', crv: 'P-256', x: expect.any(String), y: expect.any(String), kid: key.publicJwk.kid, alg: 'ES256', use: 'sig' });
  });
});

describe('the session signing key', () => {
  it('is generated once into the data directory (mode 0600) and read back by every later load', async () => {
    const dir = tempDir();
    const [a, b] = await Promise.all([
      loadSigningKey({ env: {}, dataDir: dir, serverStores: false }),
      loadSigningKey({ env: {}, dataDir: dir, serverStores: false }),
    ]);
    const c = await loadSigningKey({ env: {}, dataDir: dir, serverStores: false });
    expect(b.publicJwk).toEqual(a.publicJwk);
    expect(c.publicJwk).toEqual(a.publicJwk);
    expect(fs.statSync(path.join(dir, SIGNING_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dir)).toEqual([SIGNING_KEY_FILE]);
  });

  it('comes from SVC_SESSION_SIGNING_KEY as a PEM (newlines escaped or not), base64 DER or a private JWK with its kid', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const fromPem = await loadSigningKey({ env: { SVC_SESSION_SIGNING_KEY: pem.replace(/\n/g, '\\n') }, dataDir: tempDir(), serverStores: true });
    const fromJwk = await loadSigningKey({
      env: { SVC_SESSION_SIGNING_KEY: JSON.stringify({ ...privateKey.export({ format: 'jwk' }), kid: 'k1' }) },
      dataDir: tempDir(),
      serverStores: true,
    });
    expect(fromJwk.publicJwk).toMatchObject({ kid: 'k1', x: fromPem.publicJwk.x });
    const der = privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
    const fromDer = await loadSigningKey({ env: { SVC_SESSION_SIGNING_KEY: der }, dataDir: tempDir(), serverStores: true });
    expect(fromDer.publicJwk).toEqual(fromPem.publicJwk);
    const sec1 = privateKey.export({ format: 'der', type: 'sec1' }).toString('base64'); // what openssl genpkey -outform DER writes
    const fromSec1 = await loadSigningKey({ env: { SVC_SESSION_SIGNING_KEY: sec1 }, dataDir: tempDir(), serverStores: true });
    expect(fromSec1.publicJwk).toEqual(fromPem.publicJwk);
  });

  it('is required with the server stores, and must be EC P-256', async () => {
    await expect(loadSigningKey({ env: {}, dataDir: tempDir(), serverStores: true })).rejects.toThrow(/SVC_SESSION_SIGNING_KEY is required with EVENTSTORE_URL\/MONGODB_URL/);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    await expect(loadSigningKey({ env: { SVC_SESSION_SIGNING_KEY: rsa }, dataDir: tempDir(), serverStores: true })).rejects.toThrow(/EC P-256/);
    await expect(loadSigningKey({ env: { SVC_SESSION_SIGNING_KEY: 'garbage' }, dataDir: tempDir(), serverStores: true })).rejects.toThrow(/not a private key/);
  });
});
