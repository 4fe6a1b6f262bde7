import { createCipheriv, createDecipheriv, hkdfSync } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { deriveKey, KEY_PURPOSES, omitSecrets, openSecrets, SecretBox, SecretUnavailableError, sealSecrets } from './secrets';

describe('sealSecrets / openSecrets', () => {
  let dir: string;
  let box: SecretBox;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'secrets-'));
    box = SecretBox.fromEnvironment(dir, {});
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const details = {
    sqldb: { host: 'db', port: 5432, password: 'hunter2', ssl_mode: 'require' },
    chat: { signingSecret: '${env:CHAT_SECRET}', channels: [{ name: '#ops', token: 'tok-1' }] },
  };

  it('seals only secret fields, at any depth, and opens them back', () => {
    const sealed = sealSecrets(details, box);
    expect(JSON.stringify(sealed)).not.toMatch(/hunter2|"tok-1"/);
    expect(sealed.sqldb).toMatchObject({ host: 'db', port: 5432, ssl_mode: 'require', password: expect.stringMatching(/^enc:v2:/) });
    expect(sealed.chat.signingSecret).toBe('${env:CHAT_SECRET}');
    expect(openSecrets(sealed, box, { CHAT_SECRET: 'from-env' })).toEqual({
      ...details,
      chat: { ...details.chat, signingSecret: 'from-env' },
    });
  });

  it('seals the usual names of keys and credentials, list items of secret fields included', () => {
    const http = { http: { url: 'https://api.example', api_key: 'k-1', routingKey: 'r-1', credentials: 'c-1', auth: { tokens: ['t-1', 't-2'] } } };
    const sealed = sealSecrets(http, box);
    // Whole JSON string values: the random ciphertext may hold 't-1' by chance (it once did).
    expect(JSON.stringify(sealed)).not.toMatch(/"(k-1|r-1|c-1|t-1|t-2)"/);
    expect(sealed.http.url).toBe('https://api.example');
    expect(openSecrets(sealed, box, {})).toEqual(http);
  });

  it('a ${env:NAME} reference is stored as written and resolved at use, whatever the field is called', () => {
    const http = { http: { url: '${env:API_URL}', headers: [{ name: 'X-Org', value: '${env:API_ORG}' }], port: 443 } };
    const sealed = sealSecrets(http, box);
    expect(sealed).toEqual(http);
    expect(openSecrets(sealed, box, { API_URL: 'https://api.example', API_ORG: 'acme' })).toEqual({
      http: { url: 'https://api.example', headers: [{ name: 'X-Org', value: 'acme' }], port: 443 },
    });
    expect(() => openSecrets(sealed, box, {})).toThrow(new SecretUnavailableError('environment variable API_URL is not set'));
  });

  it('an unset variable or foreign ciphertext is SecretUnavailableError naming the cause, never a value', () => {
    const sealed = sealSecrets(details, box);
    expect(() => openSecrets(sealed, box, {})).toThrow(new SecretUnavailableError('environment variable CHAT_SECRET is not set'));
    const other = SecretBox.fromEnvironment(dir, { SVC_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') });
    let error: unknown;
    try {
      openSecrets(sealed, other, { CHAT_SECRET: 'x' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SecretUnavailableError);
    expect((error as Error).message).toMatch(/cannot be decrypted/);
    expect((error as Error).message).not.toMatch(/hunter2|enc:v\d/);
  });
});

describe('keys derived from SVC_ENCRYPTION_KEY', () => {
  const master = Buffer.alloc(32, 9);
  const box = SecretBox.fromEnvironment('/nonexistent-unused', { SVC_ENCRYPTION_KEY: master.toString('base64') });

  /** `enc:v<n>:iv.tag.data` opened with a given key, or null when that key does not open it. */
  function openWith(key: Buffer, sealed: string): string | null {
    const [iv, tag, data] = sealed.replace(/^enc:v\d:/, '').split('.');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }

  it('are HKDF-SHA256 of the master key with the purpose as info, one key per purpose', () => {
    const derived = deriveKey(master, KEY_PURPOSES.connectionSecrets);
    expect(derived).toEqual(Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), 'svc/connection-secrets/aes-256-gcm/v1', 32)));
    expect(derived.equals(master)).toBe(false);
    expect(derived.equals(deriveKey(master, KEY_PURPOSES.connectionSecretsIv))).toBe(false);
    expect(new Set(Object.values(KEY_PURPOSES)).size).toBe(Object.keys(KEY_PURPOSES).length);
  });

  it('seal new values under the derived key (enc:v2), never under the master key itself', () => {
    const sealed = box.seal('hunter2');
    expect(sealed).toMatch(/^enc:v2:/);
    expect(openWith(deriveKey(master, KEY_PURPOSES.connectionSecrets), sealed)).toBe('hunter2');
    expect(openWith(master, sealed)).toBeNull();
    expect(box.seal('hunter2')).toBe(sealed); // the synthetic IV keeps re-sealing idempotent
  });

  it('still open values sealed with the master key before derived keys existed (enc:v1)', () => {
    const iv = Buffer.alloc(12, 3);
    const cipher = createCipheriv('aes-256-gcm', master, iv);
    const data = Buffer.concat([cipher.update('old-secret', 'utf8'), cipher.final()]);
    const legacy = `enc:v1:${iv.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}.${data.toString('base64url')}`;
    expect(box.open(legacy)).toBe('old-secret');
    expect(box.seal(legacy)).toBe(legacy); // already sealed: stored as is
    const other = SecretBox.fromEnvironment('/nonexistent-unused', { SVC_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64') });
    expect(() => other.open(legacy)).toThrow(SecretUnavailableError);
  });
});

describe('omitSecrets', () => {
  it('leaves out every secret field and every ${env:NAME} value, at any depth, and keeps the rest', () => {
    const details = {
      sqldb: { host: 'db', port: 5432, password: 'p', ssl_mode: 'require' },
      http: { base_url: '${env:PARTNER_URL}', api_key: 'k', headers: [{ name: 'x', authorization: 'Bearer t' }], timeout_seconds: 5 },
      chat: { team_id: 'T1', signing_secret: 's', bot_channels: [{ name: '#ops', id: 'C1' }], tokens: ['a', 'b'] },
    };
    expect(omitSecrets(details)).toEqual({
      sqldb: { host: 'db', port: 5432, ssl_mode: 'require' },
      http: { headers: [{ name: 'x' }], timeout_seconds: 5 },
      chat: { team_id: 'T1', bot_channels: [{ name: '#ops', id: 'C1' }], tokens: [] },
    });
  });
});
