import { checkInput, INPUT_LIMITS, parseJsonBody } from './input-limits';

// `levels` objects nested in one another.
const nested = (levels: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
};

describe('input limits', () => {
  it('accepts a request at every limit', () => {
    expect(() => checkInput(nested(INPUT_LIMITS.maxDepth))).not.toThrow();
    expect(() => checkInput({ s: 'x'.repeat(INPUT_LIMITS.maxStringLength), ['k'.repeat(INPUT_LIMITS.maxKeyLength)]: 1 })).not.toThrow();
    expect(() => checkInput({ emoji: '😀', labels: { constructor: 'c', toString: 't' } })).not.toThrow();
  });

  it('refuses each excess, naming the place and the limit', () => {
    expect(() => checkInput(nested(INPUT_LIMITS.maxDepth + 1))).toThrow(/request\.a\.a.* is nested more than 32 levels deep/);
    expect(() => checkInput(JSON.parse(`${'['.repeat(5000)}${']'.repeat(5000)}`))).toThrow(/nested more than/);
    const wide = Object.fromEntries(Array.from({ length: INPUT_LIMITS.maxObjectKeys + 1 }, (_, i) => [`k${i}`, i]));
    expect(() => checkInput({ note: { tool_args: wide } })).toThrow(/request\.note\.tool_args has 1001 fields; at most 1000/);
    expect(() => checkInput({ items: new Array(INPUT_LIMITS.maxValues + 1).fill(0) })).toThrow(/more than 10000 values/);
    expect(() => checkInput({ s: 'x'.repeat(INPUT_LIMITS.maxStringLength + 1) })).toThrow(/request\.s is 65537 characters long; at most 65536/);
    expect(() => checkInput({ ['k'.repeat(INPUT_LIMITS.maxKeyLength + 1)]: 1 })).toThrow(/field name of 257 characters/);
  });

  it('refuses NUL, lone surrogates and __proto__ keys, in values and keys alike', () => {
    expect(() => checkInput({ request_id: 'a\u0000b' })).toThrow(/request\.request_id contains a NUL character/);
    expect(() => checkInput({ request_id: '\ud800' })).toThrow(/request\.request_id is not well-formed Unicode/);
    expect(() => checkInput({ list: ['ok', 'x\udc00'] })).toThrow(/request\.list\[1\] is not well-formed/);
    expect(() => checkInput({ labels: { 'a\u0000': '1' } })).toThrow(/request\.labels has a field name containing a NUL/);
    expect(() => checkInput({ labels: { '\ud83d': '1' } })).toThrow(/not well-formed Unicode/);
    expect(() => checkInput(JSON.parse('{"tool_args":{"__proto__":{"admin":true}}}'))).toThrow(/field named '__proto__'/);
  });

  it('parses JSON bodies, with a clear message for empty or malformed ones', () => {
    expect(parseJsonBody('{"a":1}')).toEqual({ a: 1 });
    expect(() => parseJsonBody('  ')).toThrow(/request body is empty/);
    expect(() => parseJsonBody('{"a":')).toThrow(/request body is not valid JSON/);
  });
});
