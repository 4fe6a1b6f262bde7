import { createPrivateKey, createPublicKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';

/** The environment variable holding the session-token signing key (PEM or private JWK). */
export const SIGNING_KEY_ENV = 'SVC_SESSION_SIGNING_KEY';
/** Where the embedded mode keeps the key it generates, in the data directory (mode 0600). */
export const SIGNING_KEY_FILE = 'session-signing-key.json';

/** The ES256 key that signs agent session tokens, and its public half as published in the JWKS. */
export interface SigningKey {
  privateKey: KeyObject;
  /** Public JWK with kid, alg ES256 and use sig; never holds `d`. */
  publicJwk: JWK & { kid: string };
}

/**
 * The signing key from SVC_SESSION_SIGNING_KEY (a PKCS#8 PEM, with real or `\n`-escaped newlines,
 * its DER form in base64, or a private JWK as JSON); without it, the key generated once into the
 * data directory and shared by every process on it. With the server stores there is no shared
 * directory: the setting is required.
 */
export async function loadSigningKey(options: { env: NodeJS.ProcessEnv; dataDir: string; serverStores: boolean }): Promise<SigningKey> {
  const configured = options.env[SIGNING_KEY_ENV];
  if (configured) return fromKey(parseConfiguredKey(configured));
  if (options.serverStores) {
    throw new Error(
      `${SIGNING_KEY_ENV} is required with EVENTSTORE_URL/MONGODB_URL (api instances share no data directory): ` +
        'set it to an EC P-256 private key, PEM or JWK (docs/operations.md, "Session tokens")',
    );
  }
  return fromKey(dataDirKey(options.dataDir));
}

async function fromKey({ key, kid }: { key: KeyObject; kid?: string }): Promise<SigningKey> {
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new Error(`${SIGNING_KEY_ENV}: the session signing key must be an EC P-256 private key (ES256)`);
  }
  const { kty, crv, x, y } = await exportJWK(createPublicKey(key));
  const publicJwk = { kty, crv, x, y };
  return { privateKey: key, publicJwk: { ...publicJwk, kid: kid ?? (await calculateJwkThumbprint(publicJwk)), alg: 'ES256', use: 'sig' } };
}

function parseConfiguredKey(value: string): { key: KeyObject; kid?: string } {
  try {
    const text = value.trim();
    if (text.startsWith('{')) {
      const jwk = JSON.parse(text) as JWK;
      return { key: createPrivateKey({ key: jwk as JsonWebKey, format: 'jwk' }), kid: jwk.kid };
    }
    // One line for .env files: base64 of the DER form (`openssl genpkey ... -outform DER | base64`).
    if (/^[A-Za-z0-9+/=]+$/.test(text)) return { key: derKey(Buffer.from(text, 'base64')) };
    return { key: createPrivateKey(text.replace(/\\n/g, '\n')) };
  } catch (error) {
    throw new Error(`${SIGNING_KEY_ENV} is not a private key (PKCS#8 PEM, base64 DER or private JWK): ${(error as Error).message}`);
  }
}

/** PKCS#8, or SEC1 as `openssl genpkey ... -outform DER` writes an EC key. */
function derKey(der: Buffer): KeyObject {
  try {
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } catch {
    return createPrivateKey({ key: der, format: 'der', type: 'sec1' });
  }
}

/**
 * Created with O_EXCL through a link, so processes starting together on one data directory all end
 * up with the first one's key; later starts read it.
 */
function dataDirKey(dataDir: string): { key: KeyObject; kid?: string } {
  const file = path.join(dataDir, SIGNING_KEY_FILE);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dataDir, { recursive: true });
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const temp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temp, JSON.stringify(privateKey.export({ format: 'jwk' })), { mode: 0o600 });
    try {
      fs.linkSync(temp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      fs.rmSync(temp, { force: true });
    }
  }
  const jwk = JSON.parse(fs.readFileSync(file, 'utf8')) as JWK;
  return { key: createPrivateKey({ key: jwk as JsonWebKey, format: 'jwk' }) };
}
