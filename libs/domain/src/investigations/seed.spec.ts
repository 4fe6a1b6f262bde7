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
});
