import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ENV_REFERENCE = /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/;
/** Sealed with keys derived from the master key for this purpose (the current format). */
const PREFIX = 'enc:v2:';
/** Sealed with the master key itself (before derived keys); opened, never written. */
const LEGACY_PREFIX = 'enc:v1:';

/**
 * The purposes SVC_ENCRYPTION_KEY serves, each with a key of its own (HKDF-SHA256, the label as
 * `info`): a key is never used for two jobs, and a new purpose gets a new label, not the raw key.
 */
export const KEY_PURPOSES = {
  connectionSecrets: 'svc/connection-secrets/aes-256-gcm/v1',
  connectionSecretsIv: 'svc/connection-secrets/synthetic-iv/v1',
  eventIdCipher: 'svc/sse-event-ids/aes-256-ctr/v1',
  eventIdMac: 'svc/sse-event-ids/hmac-sha256/v1',
  oauthState: 'svc/oauth-state/hs256/v1',
  oauthPkce: 'svc/oauth-pkce-verifier/hmac-sha256/v1',
} as const;

/**
 * The master key: SVC_ENCRYPTION_KEY, or in the embedded mode a key file in the data directory
 * (created by the first process that needs it; every process on the directory reads the same one).
 */
export function loadMasterKey(dataDir: string, env: NodeJS.ProcessEnv = process.env): Buffer {
  if (env.SVC_ENCRYPTION_KEY) return decodeEncryptionKey(env.SVC_ENCRYPTION_KEY);
  const file = path.join(dataDir, 'encryption.key');
  fs.mkdirSync(dataDir, { recursive: true });
  if (!fs.existsSync(file)) {
    try {
      fs.writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another process created it first; use theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
}

/** A 32-byte key for one purpose, derived from the master key (RFC 5869; no salt: the master key is uniformly random). */
export function deriveKey(master: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), purpose, 32));
}

/**
 * Connection secrets never reach an event in clear: an `${env:NAME}` reference is stored as written
 * and resolved at use; an inline secret is stored as AES-256-GCM ciphertext. The master key comes from
 * SVC_ENCRYPTION_KEY (base64, 32 bytes) or, in the embedded mode, a key file in the data directory;
 * sealing uses keys derived from it (KEY_PURPOSES). Values sealed before that (`enc:v1:`, the master
 * key itself) still open.
 */
export class SecretBox {
  private readonly key: Buffer;
  private readonly ivKey: Buffer;

  private constructor(private readonly master: Buffer) {
    this.key = deriveKey(master, KEY_PURPOSES.connectionSecrets);
    this.ivKey = deriveKey(master, KEY_PURPOSES.connectionSecretsIv);
  }

  static fromEnvironment(dataDir: string, env: NodeJS.ProcessEnv = process.env): SecretBox {
    return new SecretBox(loadMasterKey(dataDir, env));
  }

  /**
   * What to store for a secret value: the reference itself, or ciphertext. The IV is synthetic
   * (an HMAC of the value), so sealing the same secret twice gives the same text and re-applying an
   * unchanged configuration appends nothing; distinct secrets never share an IV.
   */
  seal(value: string): string {
    if (ENV_REFERENCE.test(value) || value.startsWith(PREFIX) || value.startsWith(LEGACY_PREFIX)) return value;
    const iv = createHmac('sha256', this.ivKey).update(value).digest().subarray(0, 12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    return `${PREFIX}${iv.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}.${data.toString('base64url')}`;
  }

  /**
   * The clear value of a stored secret, at the moment of use. An unset environment variable or
   * ciphertext this key cannot open is a SecretUnavailableError, whose message holds no secret.
   */
  open(stored: string, env: NodeJS.ProcessEnv = process.env): string {
    const reference = ENV_REFERENCE.exec(stored);
    if (reference) {
      const value = env[reference[1]];
      if (value === undefined) throw new SecretUnavailableError(`environment variable ${reference[1]} is not set`);
      return value;
    }
    const legacy = stored.startsWith(LEGACY_PREFIX);
    if (!legacy && !stored.startsWith(PREFIX)) return stored;
    const [iv, tag, data] = stored.slice((legacy ? LEGACY_PREFIX : PREFIX).length).split('.');
    try {
      const decipher = createDecipheriv('aes-256-gcm', legacy ? this.master : this.key, Buffer.from(iv ?? '', 'base64url'));
      decipher.setAuthTag(Buffer.from(tag ?? '', 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data ?? '', 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      // Sealed under another key (SVC_ENCRYPTION_KEY changed, or another data directory's key file).
      throw new SecretUnavailableError('an encrypted secret cannot be decrypted with this server\'s encryption key');
    }
  }

  /**
   * True when a field name holds a secret (password, signing_secret, token, api_key, routing_key,
   * credentials, ...). Sealing a field that is not secret costs nothing (Get opens it again);
   * missing one would put it in an event in clear, so the names are matched broadly.
   */
  static isSecretField(name: string): boolean {
    return /(password|passphrase|passwd|secret|token|key|credential|authorization)s?$/i.test(name);
  }
}

const KEY_HELP = '32 random bytes, base64-encoded (openssl rand -base64 32)';

/**
 * The key sealing connection secrets, from SVC_ENCRYPTION_KEY. Strict: Node's base64 decoder skips
 * characters it does not know, so a mangled key could otherwise decode to 32 other bytes.
 */
export function decodeEncryptionKey(value: string): Buffer {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) throw new Error(`SVC_ENCRYPTION_KEY must be ${KEY_HELP}; it holds characters base64 does not use`);
  const key = Buffer.from(value, 'base64');
  if (key.length !== 32) throw new Error(`SVC_ENCRYPTION_KEY must be ${KEY_HELP}; it decodes to ${key.length} bytes`);
  return key;
}

/**
 * The start-up check of SVC_ENCRYPTION_KEY: well formed whenever set, and required with the server
 * stores, where there is no data directory to keep a generated key in (each container would seal
 * with a key of its own, and lose it with the container).
 */
export function checkEncryptionKey(env: NodeJS.ProcessEnv): void {
  const key = env.SVC_ENCRYPTION_KEY;
  if (key) {
    decodeEncryptionKey(key);
    return;
  }
  if (env.EVENTSTORE_URL || env.MONGODB_URL) {
    throw new Error(
      `SVC_ENCRYPTION_KEY must be set when EVENTSTORE_URL or MONGODB_URL is: ${KEY_HELP}, the same for the api, the projector and the CLI`,
    );
  }
}

/** A stored secret that cannot be opened here; the message names the cause, never a value. */
export class SecretUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretUnavailableError';
  }
}

type Transform = (value: string) => string;

/**
 * Applies `transform` to every string held by a secret field (password, token, ...) at any depth, and
 * to every `${env:NAME}` reference wherever it is: the operator chose to keep that value out of the
 * file, so it is resolved at use like any secret.
 */
function mapSecretFields(value: unknown, transform: Transform, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => mapSecretFields(v, transform, key));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapSecretFields(v, transform, k)]));
  }
  return isSecretValue(value, key) ? transform(value as string) : value;
}

/**
 * Connection details with every secret field (and every value kept as a `${env:NAME}` reference)
 * left out, for callers who may see a connection but not its credentials (spec/permissions.md).
 */
export function omitSecrets<T>(details: T, key = ''): T {
  if (Array.isArray(details)) return details.filter((v) => !isSecretValue(v, key)).map((v) => omitSecrets(v, key)) as T;
  if (details && typeof details === 'object') {
    return Object.fromEntries(Object.entries(details).filter(([k, v]) => !isSecretValue(v, k)).map(([k, v]) => [k, omitSecrets(v, k)])) as T;
  }
  return details;
}

const isSecretValue = (value: unknown, key: string): boolean => typeof value === 'string' && (SecretBox.isSecretField(key) || ENV_REFERENCE.test(value));

/** Connection details as stored: each secret field sealed (a reference or ciphertext). */
export function sealSecrets<T>(details: T, box: SecretBox): T {
  return mapSecretFields(details, (v) => box.seal(v)) as T;
}

/** Connection details as used: each sealed secret field opened (throws SecretUnavailableError). */
export function openSecrets<T>(details: T, box: SecretBox, env: NodeJS.ProcessEnv = process.env): T {
  return mapSecretFields(details, (v) => box.open(v, env)) as T;
}

/** Resolves `${env:NAME}` in a configuration value (for values that are used, not stored). */
export function resolveEnv(value: string, env: NodeJS.ProcessEnv = process.env): string {
  return value.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const resolved = env[name];
    if (resolved === undefined) throw new Error(`environment variable ${name} is not set (referenced by the configuration)`);
    return resolved;
  });
}
