import fc from 'fast-check';
import { closingReferences, issueOf, MAX_CLOSING_REFERENCES, MAX_PULL_REQUEST_TEXT } from './closing-references';

describe('closing references (monitoring plans rule 6)', () => {
  it('reads the closing keywords, with or without a colon, before a key or an issue URL', () => {
    expect(closingReferences('Fixes issues/disk-full')).toEqual(['issues/disk-full']);
    expect(closingReferences('closes: issues/a\nRESOLVES:issues/b.')).toEqual(['issues/a', 'issues/b']);
    expect(closingReferences('This fixes https://svc.example.com/issues/abc_1?tab=x and resolves https://x.io/o/p/issues/q/')).toEqual(['issues/abc_1', 'issues/q']);
    expect(closingReferences('fixed issues/a, closed issues/b; resolve issues/c')).toEqual(['issues/a', 'issues/b', 'issues/c']);
  });

  it('ignores bare mentions and look-alikes', () => {
    expect(closingReferences('See issues/a; related to issues/b')).toEqual([]);
    expect(closingReferences('prefixes issues/a and unfixes issues/b and fixesissues/c')).toEqual([]);
    expect(closingReferences('fixes the bug in issues/a')).toEqual([]);
    expect(closingReferences('fixes #12 and fixes https://example.com/pulls/3')).toEqual([]);
    expect(closingReferences('fixes issues/ and fixes issues/-bad and fixes issues/a/b')).toEqual([]);
  });

  it('lists each issue once, in order of first appearance, and at most a bounded number', () => {
    expect(closingReferences('fixes issues/a fixes issues/b closes issues/a')).toEqual(['issues/a', 'issues/b']);
    const many = Array.from({ length: 80 }, (_, i) => `fixes issues/i${i}`).join(' ');
    expect(closingReferences(many)).toHaveLength(MAX_CLOSING_REFERENCES);
  });

  it('keys and URLs by the same rule', () => {
    expect(issueOf('issues/a)')).toBe('issues/a');
    expect(issueOf('https://host')).toBeNull();
    expect(issueOf('ftp://host/issues/a')).toBeNull();
  });

  it('finds every planted reference whatever surrounds it (property)', () => {
    const id = fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,20}$/);
    const filler = fc.string({ maxLength: 40 }).map((s) => s.replace(/[a-zA-Z0-9_:/]/g, ' '));
    fc.assert(
      fc.property(fc.array(fc.tuple(filler, fc.constantFrom('fixes', 'Closes:', 'resolves', 'FIXED:'), id), { maxLength: 10 }), (parts) => {
        const text = parts.map(([f, k, i]) => `${f} ${k} issues/${i} `).join('');
        const expected = [...new Set(parts.map(([, , i]) => `issues/${i}`))];
        expect(closingReferences(text)).toEqual(expected.slice(0, MAX_CLOSING_REFERENCES));
      }),
    );
  });

  it('never answers a reference that no keyword introduced (fuzz)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        if (closingReferences(text).length > 0) expect(text.toLowerCase()).toMatch(/(close|fix|resolve)/);
        const withoutKeywords = text.replace(/close|fix|resolve/gi, 'x');
        expect(closingReferences(withoutKeywords)).toEqual([]);
      }),
    );
  });

  it('reads adversarial text in linear time and stops at the cap', () => {
    const inputs = ['fixes '.repeat(20_000), 'fixes:'.repeat(20_000), `fixes ${'a'.repeat(MAX_PULL_REQUEST_TEXT)}`, 'f'.repeat(200_000), `fixes ${'/'.repeat(100_000)}`];
    for (const input of inputs) {
      const started = process.hrtime.bigint();
      closingReferences(input);
      expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(200);
    }
    expect(closingReferences(`${' '.repeat(MAX_PULL_REQUEST_TEXT)}fixes issues/late`)).toEqual([]);
  });
});
