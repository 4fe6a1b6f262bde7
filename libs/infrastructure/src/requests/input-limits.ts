/**
 * Limits on the shape of every request (docs/operations.md, "Limits"), checked in one linear walk of
 * the parsed JSON body, query and path parameters before anything else looks at them: the casing,
 * the DTO transformation and the handlers may then recurse and iterate freely, because what they
 * walk is already bounded.
 */
import { invalid } from '@svc/domain/shared/domain-error';

export const INPUT_LIMITS = {
  /** Objects and arrays nested inside one another, the request itself being level 1. */
  maxDepth: 32,
  /** Object members and array items in the whole request. */
  maxValues: 10_000,
  /** Members of one object (the DTO transformation costs the square of this). */
  maxObjectKeys: 1_000,
  /** Characters (UTF-16 code units) of one string value. */
  maxStringLength: 65_536,
  /** Characters of one object key. */
  maxKeyLength: 256,
} as const;

/**
 * Throws INVALID_ARGUMENT naming the place and the limit when `value` breaks one: too deep, too many
 * values or keys, a string or key too long, a NUL character, a lone UTF-16 surrogate, or a key
 * `__proto__` (which some code would treat as the prototype rather than as data).
 */
export function checkInput(value: unknown, what = 'request'): void {
  // The path is built only for the message, from the keys on the way down: building one per value
  // would cost the depth times the key length for every value.
  const trail: Array<string | number> = [];
  const at = () => trail.reduce<string>((path, s) => (typeof s === 'number' ? `${path}[${s}]` : `${path}.${s}`), what);
  let values = 0;
  const count = (n: number) => {
    values += n;
    if (values > INPUT_LIMITS.maxValues) {
      throw invalid(`${what} holds more than ${INPUT_LIMITS.maxValues} values (object fields and array items in all)`);
    }
  };
  const visit = (node: unknown, depth: number): void => {
    if (typeof node === 'string') return checkString(node, at);
    if (typeof node !== 'object' || node === null) return;
    if (depth > INPUT_LIMITS.maxDepth) throw invalid(`${at()} is nested more than ${INPUT_LIMITS.maxDepth} levels deep`);
    if (Array.isArray(node)) {
      count(node.length);
      for (let i = 0; i < node.length; i++) {
        trail.push(i);
        visit(node[i], depth + 1);
        trail.pop();
      }
      return;
    }
    const keys = Object.keys(node);
    if (keys.length > INPUT_LIMITS.maxObjectKeys) {
      throw invalid(`${at()} has ${keys.length} fields; at most ${INPUT_LIMITS.maxObjectKeys} are allowed in one object`);
    }
    count(keys.length);
    for (const key of keys) {
      checkKey(key, at);
      trail.push(key);
      visit((node as Record<string, unknown>)[key], depth + 1);
      trail.pop();
    }
  };
  visit(value, 1);
}

// With the `u` flag a paired surrogate is one code point: only a lone one is in category Cs.
const LONE_SURROGATE = /\p{Cs}/u;

function checkString(text: string, at: () => string): void {
  if (text.length > INPUT_LIMITS.maxStringLength) {
    throw invalid(`${at()} is ${text.length} characters long; at most ${INPUT_LIMITS.maxStringLength} are allowed`);
  }
  if (text.includes('\u0000')) throw invalid(`${at()} contains a NUL character, which is not allowed`);
  if (LONE_SURROGATE.test(text)) throw invalid(`${at()} is not well-formed Unicode (it holds a lone UTF-16 surrogate)`);
}

function checkKey(key: string, at: () => string): void {
  if (key.length > INPUT_LIMITS.maxKeyLength) {
    throw invalid(`${at()} has a field name of ${key.length} characters; at most ${INPUT_LIMITS.maxKeyLength} are allowed`);
  }
  if (key === '__proto__') throw invalid(`${at()} has a field named '__proto__', which is not allowed`);
  if (key.includes('\u0000')) throw invalid(`${at()} has a field name containing a NUL character, which is not allowed`);
  if (LONE_SURROGATE.test(key)) throw invalid(`${at()} has a field name that is not well-formed Unicode (a lone UTF-16 surrogate)`);
}

/** A JSON request body (checked against the limits with the rest of the request, in parseRequest). */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') throw invalid('request body is empty; send a JSON object');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalid(`request body is not valid JSON: ${(error as Error).message}`);
  }
  return value;
}
