/**
 * Wildcard matches as `$regex` sources that MongoDB runs as they are and that the embedded stores
 * recognise and run without a regular expression engine.
 *
 * AIP-160 wildcards only ever mean "starts with", "ends with" or "contains" one literal text, so a
 * compiled filter carries one of three shapes: `^<text>` (prefix), `<text>(?![\s\S])` (suffix: end
 * of subject in PCRE and JavaScript alike, where `$` would also match before a final newline in
 * PCRE) and `<text>` (contains), the text escaped. `parseLiteralPattern` reads those shapes back (and
 * any other regex that is a plain literal with such anchors), so SQLite and mingo can match in time
 * linear in the value and the text: startsWith, endsWith, includes (V8's Boyer-Moore search), never
 * a backtracking regex on user input. Anything else is not a literal pattern and stays a regex.
 */
export type LiteralKind = 'prefix' | 'suffix' | 'contains';

export interface LiteralPattern {
  kind: LiteralKind;
  text: string;
  /** `$options: 'i'`: the `:` operator's match (the filter compiler decides which operator folds case). */
  ignoreCase?: boolean;
}

const END = '(?![\\s\\S])';
/** Characters with a meaning in a regex; escaped by the encoder, refused unescaped by the decoder. */
const META = new Set(['\\', '^', '$', '.', '|', '?', '*', '+', '(', ')', '[', ']', '{', '}']);
const isAsciiPunctuation = (code: number) =>
  (code >= 0x21 && code <= 0x2f) || (code >= 0x3a && code <= 0x40) || (code >= 0x5b && code <= 0x60) || (code >= 0x7b && code <= 0x7e);
const isControl = (code: number) => code < 0x20 || code === 0x7f;
const hex2 = (code: number) => `\\x${code.toString(16).padStart(2, '0')}`;

/**
 * The `$regex` source of a literal pattern. Punctuation is backslash-escaped and control characters
 * written `\xHH`: both mean the character itself in PCRE and JavaScript (letters and digits stay
 * bare, since an escaped letter means something else in both).
 */
export function literalRegex({ kind, text }: Pick<LiteralPattern, 'kind' | 'text'>): string {
  let body = '';
  for (const c of text) {
    const code = c.codePointAt(0) ?? 0;
    body += isAsciiPunctuation(code) ? `\\${c}` : isControl(code) ? hex2(code) : c;
  }
  if (kind === 'prefix') return `^${body}`;
  return kind === 'suffix' ? body + END : body;
}

/** The `$regex` condition of a literal pattern, with `$options: 'i'` when it ignores case. */
export function literalCondition(pattern: LiteralPattern): { $regex: string; $options?: 'i' } {
  return pattern.ignoreCase ? { $regex: literalRegex(pattern), $options: 'i' } : { $regex: literalRegex(pattern) };
}

/**
 * Reads a `$regex` (with its `$options`) back into a literal pattern, or null when it is anything
 * else. Linear in the source. Also reads the escapes JavaScript's `RegExp#source` adds (`\/`, `\n`).
 */
export function parseLiteralPattern(source: unknown, options?: unknown): LiteralPattern | null {
  if (typeof source !== 'string' || (options !== undefined && options !== '' && options !== 'i')) return null;
  const ignoreCase = options === 'i';
  let from = 0;
  let to = source.length;
  const prefix = source.startsWith('^');
  if (prefix) from = 1;
  const suffix = source.endsWith(END) && to - END.length >= from;
  if (suffix) to -= END.length;
  if (prefix && suffix) return null; // an exact match: the compiler never makes one, equality is cheaper
  let text = '';
  for (let i = from; i < to; i++) {
    const c = source[i];
    if (c !== '\\') {
      if (META.has(c)) return null;
      text += c;
      continue;
    }
    const e = source[++i];
    if (e === undefined || i >= to) return null;
    if (e === 'x' && /^[0-9a-fA-F]{2}$/.test(source.slice(i + 1, i + 3)) && i + 2 < to) {
      text += String.fromCharCode(parseInt(source.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (e === 'n' || e === 'r') {
      text += e === 'n' ? '\n' : '\r';
    } else if (e === 'u' && (source.slice(i + 1, i + 5) === '2028' || source.slice(i + 1, i + 5) === '2029') && i + 4 < to) {
      text += String.fromCharCode(parseInt(source.slice(i + 1, i + 5), 16));
      i += 4;
    } else if (isAsciiPunctuation(e.charCodeAt(0))) {
      text += e;
    } else {
      return null;
    }
  }
  const kind = prefix ? 'prefix' : suffix ? 'suffix' : 'contains';
  return ignoreCase ? { kind, text, ignoreCase } : { kind, text };
}

/**
 * Whether a value matches: strings only, as a `$regex` would. Ignoring case lower-cases both sides
 * (linear; close to the simple case folding of MongoDB's `i`, equal on ASCII).
 */
export function matchesLiteral({ kind, text, ignoreCase }: LiteralPattern, value: unknown): boolean {
  if (typeof value !== 'string') return false;
  if (ignoreCase) return matchesLiteral({ kind, text: text.toLowerCase() }, value.toLowerCase());
  if (kind === 'prefix') return value.startsWith(text);
  return kind === 'suffix' ? value.endsWith(text) : value.includes(text);
}
