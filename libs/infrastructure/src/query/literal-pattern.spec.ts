import fc from 'fast-check';
import { literalRegex, matchesLiteral, parseLiteralPattern, type LiteralPattern } from './literal-pattern';

const kinds = fc.constantFrom<LiteralPattern['kind']>('prefix', 'suffix', 'contains');
// Regex metacharacters, escapes, line terminators and controls turn up far more often than at random.
const tricky = fc.constantFrom('\\', '^', '$', '.', '*', '(', ')', '[', ']', '{', '}', '|', '?', '+', '/', '\n', '\r', '\u2028', '\0', '\t', 'x', 'a', 'é');
const text = fc.string({ unit: fc.oneof(tricky, fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), maxLength: 12 });
const pattern = fc.record({ kind: kinds, text });

describe('literal patterns', () => {
  it('reads back every pattern it writes', () => {
    fc.assert(
      fc.property(pattern, (p) => {
        expect(parseLiteralPattern(literalRegex(p))).toEqual(p);
      }),
    );
  });

  it('matches exactly what the regex it writes matches', () => {
    fc.assert(
      fc.property(pattern, text, text, (p, before, after) => {
        const regex = new RegExp(literalRegex(p));
        for (const value of [before, p.text, before + p.text, p.text + after, before + p.text + after]) {
          expect({ value, linear: matchesLiteral(p, value) }).toEqual({ value, linear: regex.test(value) });
        }
      }),
    );
  });

  it('reads the escapes RegExp#source adds', () => {
    for (const p of [{ kind: 'contains', text: 'a\nb/c' }, { kind: 'suffix', text: '\u2028\r' }] as LiteralPattern[]) {
      expect(parseLiteralPattern(new RegExp(literalRegex(p)).source)).toEqual(p);
    }
  });

  it('leaves every other regex, and any option, to a regex engine', () => {
    for (const source of ['a.b', 'a*', 'x$', '^a(?![\\s\\S])', '[ab]', 'a|b', '\\d', '\\w+', '(a)', 'a\\', '\\x4', '\\u0041', 'a{2}']) {
      expect({ source, pattern: parseLiteralPattern(source) }).toEqual({ source, pattern: null });
    }
    expect(parseLiteralPattern('^abc', 'm')).toBeNull();
    expect(parseLiteralPattern('^abc', 'i')).toEqual({ kind: 'prefix', text: 'abc', ignoreCase: true });
    expect(parseLiteralPattern(42)).toBeNull();
    expect(parseLiteralPattern('^users/')).toEqual({ kind: 'prefix', text: 'users/' });
    expect(parseLiteralPattern('^abc', '')).toEqual({ kind: 'prefix', text: 'abc' });
  });

  it('matches strings only', () => {
    for (const value of [5, null, undefined, ['abc'], { a: 'abc' }]) expect(matchesLiteral({ kind: 'contains', text: '' }, value)).toBe(false);
  });
});
