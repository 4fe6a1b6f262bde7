import { Readable } from 'node:stream';
import { cutToJsonBytes, readCapped, redact } from './bounded-body';
import { secretValues } from './connection-details';

describe('bounded bodies', () => {
  it('given a stream longer than the cap, when read, then exactly the cap is kept, it says truncated, and the stream is destroyed', async () => {
    const stream = Readable.from([Buffer.from('abcd'), Buffer.from('efgh'), Buffer.from('ijkl')]);
    expect(await readCapped(stream, 6)).toEqual({ bytes: Buffer.from('abcdef'), truncated: true });
    expect(stream.destroyed).toBe(true);
    expect(await readCapped(Readable.from([Buffer.from('abc')]), 3)).toEqual({ bytes: Buffer.from('abc'), truncated: false });
    expect(await readCapped(null, 3)).toEqual({ bytes: Buffer.alloc(0), truncated: false });
  });

  it('given text with quotes, escapes and emoji, when cut to a JSON budget, then its JSON literal fits and no pair is split', () => {
    const text = 'a"b\\c\n😀😀😀';
    for (let budget = 2; budget <= 40; budget++) {
      const cut = cutToJsonBytes(text, budget);
      expect(Buffer.byteLength(JSON.stringify(cut))).toBeLessThanOrEqual(budget);
      expect(text.startsWith(cut)).toBe(true);
      expect(cut).not.toMatch(/[\uD800-\uDBFF]$/);
    }
    expect(cutToJsonBytes(text, 100)).toBe(text);
  });
});

describe('redacting secrets from what a server answered', () => {
  const connection = {
    name: 'connections/partner',
    type: 'CONNECTION_TYPE_HTTP',
    details: { token: 'tok-123456', username: 'u', password: 'pw-secret', headers: { 'X-Api-Key': 'header-key-999', Accept: 'json' } },
  };

  it('given the connection, when its secrets are listed, then credentials, long header values and the sent encodings are among them', () => {
    const secrets = secretValues(connection);
    expect(secrets).toEqual(expect.arrayContaining(['tok-123456', 'pw-secret', 'header-key-999', 'Bearer tok-123456']));
    expect(secrets).not.toContain('json');
  });

  it('given an echo of the credentials, when redacted, then none is left', () => {
    const secrets = secretValues(connection);
    expect(redact('auth: Bearer tok-123456, key: header-key-999, again tok-123456', secrets)).toBe('auth: [redacted], key: [redacted], again [redacted]');
  });

  it('given a text cut short inside a secret, when redacted, then the start of the secret goes too', () => {
    const secrets = secretValues(connection);
    expect(redact('{"authorization":"Bearer tok-12', secrets, true)).toBe('{"authorization":"');
    expect(redact('key: header-k', secrets, true)).toBe('key: ');
    // Three characters could be anything: kept.
    expect(redact('ends with tok', secrets, true)).toBe('ends with tok');
    expect(redact('ends with tok-', secrets, true)).toBe('ends with ');
  });
});
