import { artifactReferences, seedTexts, titleFromSeed } from './seed';

describe('investigation seed rules', () => {
  it('takes user text activities with role USER and names the bad item', () => {
    expect(seedTexts([{ user: { text: { content: 'a', role: 'USER' } } }, { user: { text: { text: 'b' } } }])).toEqual(['a', 'b']);
    expect(() => seedTexts([{ assistant: { text: { content: 'a' } } }])).toThrow(/initial_activities\[0\] must be a user text activity/);
    expect(() => seedTexts([{ user: { text: { content: '  ' } } }])).toThrow(/initial_activities\[0\]\.user\.text\.content/);
  });

  it('titles from the first non-blank line, whitespace collapsed, at most 80 characters', () => {
    expect(titleFromSeed(['\n\n  Checkout   is down \nsecond line'])).toBe('Checkout is down');
    expect(titleFromSeed([])).toBeUndefined();
    const title = titleFromSeed(['alpha '.repeat(30)])!;
    expect(title.length).toBeLessThanOrEqual(80);
    expect(title).toMatch(/^alpha( alpha)*…$/);
    expect(titleFromSeed(['x'.repeat(200)])).toBe(`${'x'.repeat(79)}…`);
  });

  it('checks artifact references field by field', () => {
    const sha = 'a'.repeat(64);
    expect(artifactReferences([{ name: 'logs/app.log', sha256: sha, contentType: 'text/plain', contentEncoding: 'gzip' }])).toEqual([
      { name: 'logs/app.log', sha256: sha, contentType: 'text/plain', contentEncoding: 'gzip' },
    ]);
    expect(() => artifactReferences([{ name: 'a/../b', sha256: sha, contentType: 'text/plain' }])).toThrow(/artifacts\[0\]\.name/);
    expect(() => artifactReferences([{ name: 'a', sha256: 'A'.repeat(64), contentType: 'text/plain' }])).toThrow(/artifacts\[0\]\.sha256/);
    expect(() => artifactReferences([{ name: 'a', sha256: sha, contentType: 'plain' }])).toThrow(/artifacts\[0\]\.content_type/);
  });

  it('takes RFC 9110 media types and registered content codings only (a header that could not be sent is refused up front)', () => {
    const sha = 'a'.repeat(64);
    const ref = (contentType: string, contentEncoding?: string) => artifactReferences([{ name: 'a', sha256: sha, contentType, contentEncoding }]);
    for (const ok of ['text/plain', 'text/plain; charset=utf-8', 'application/json;charset="utf-8"', 'image/svg+xml', 'application/vnd.api+json']) expect(ref(ok)[0].contentType).toBe(ok);
    for (const bad of ['text/plain;\x01x', 'text/plain;', 'text/plain\r\nx-evil: 1', 'a/b c', 'text/plain; charset=utf-8\n', `text/plain; p=${'x'.repeat(300)}`]) {
      expect(() => ref(bad)).toThrow(/artifacts\[0\]\.content_type must be a media type \(RFC 9110\)/);
    }
    expect(ref('application/octet-stream', 'br')[0].contentEncoding).toBe('br');
    for (const bad of ['x-evil', 'gzip, br', 'GZIP ']) expect(() => ref('text/plain', bad)).toThrow(/content_encoding must be one of gzip/);
  });
});
