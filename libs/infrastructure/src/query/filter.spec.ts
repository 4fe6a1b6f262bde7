import { Query } from 'mingo';
import { DomainError } from '@svc/domain/shared/domain-error';
import { filterQuery } from '../read-store/filter-query';
import { compileFilter, FILTER_LIMITS, normaliseTimestamp, parseFilter, type FilterSchema } from './filter';

const schema: FilterSchema = {
  display_name: { type: 'string', path: 'displayName' },
  tool_name: { type: 'string', path: 'toolName' },
  a: { type: 'string', path: 'a' },
  b: { type: 'string', path: 'b' },
  c: { type: 'string', path: 'c' },
  count: { type: 'number', path: 'count' },
  enabled: { type: 'boolean', path: 'enabled' },
  create_time: { type: 'timestamp', path: 'createTime' },
  status: { type: 'enum', path: 'status', values: ['DEPLOYMENT_STATUS_PENDING', 'DEPLOYMENT_STATUS_SUCCESS'] },
  labels: { type: 'map', path: 'labels' },
  services: { type: 'string[]', path: 'services' },
  'target.kind': { type: 'string', path: 'target.kind' },
};

const compile = (text: string) => compileFilter(text, schema);

/** Asserts a DomainError INVALID_ARGUMENT whose message is exactly `message`. */
function expectInvalid(text: string, message: string | RegExp): void {
  let caught: unknown;
  try {
    compile(text);
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(DomainError);
  const err = caught as DomainError;
  expect(err.code).toBe('INVALID_ARGUMENT');
  if (typeof message === 'string') expect(err.message).toBe(message);
  else expect(err.message).toMatch(message);
}

/**
 * Evaluates through the embedded stores' mingo query (linear wildcard matching) and checks that
 * plain mingo, running the `$regex` as a JavaScript regex as MongoDB runs it as PCRE, agrees.
 */
function matches(text: string, doc: Record<string, unknown>): boolean {
  const filter = compile(text);
  const linear = filterQuery(filter).test(doc);
  expect({ text, doc, regex: new Query(filter).test(doc) }).toEqual({ text, doc, regex: linear });
  return linear;
}

describe('compileFilter: structure', () => {
  it('compiles blank text to match-all', () => {
    expect(compile('')).toEqual({});
    expect(compile('   \t ')).toEqual({});
    expect(parseFilter('')).toEqual({ kind: 'and', children: [] });
  });

  it('compiles the comparators', () => {
    expect(compile("a = 'x'")).toEqual({ a: 'x' });
    expect(compile("a != 'x'")).toEqual({ a: { $ne: 'x' } });
    expect(compile('count < 3')).toEqual({ count: { $lt: 3 } });
    expect(compile('count <= 3')).toEqual({ count: { $lte: 3 } });
    expect(compile('count > 3')).toEqual({ count: { $gt: 3 } });
    expect(compile('count >= 3')).toEqual({ count: { $gte: 3 } });
    expect(compile('count:3')).toEqual({ count: 3 });
    expect(compile("a='x'")).toEqual({ a: 'x' });
  });

  it('binds OR tighter than AND (a AND b OR c is a AND (b OR c))', () => {
    expect(compile('a = 1 AND b = 2 OR c = 3')).toEqual({ $and: [{ a: '1' }, { $or: [{ b: '2' }, { c: '3' }] }] });
    expect(compile('a = 1 OR b = 2 AND c = 3')).toEqual({ $and: [{ $or: [{ a: '1' }, { b: '2' }] }, { c: '3' }] });
    const ast = parseFilter('a = 1 AND b = 2 OR c = 3');
    expect(ast.kind).toBe('and');
    if (ast.kind === 'and') expect(ast.children.map((c) => c.kind)).toEqual(['restriction', 'or']);
  });

  it('treats a sequence as AND, with OR still binding tighter', () => {
    expect(compile('a = 1 b = 2')).toEqual({ $and: [{ a: '1' }, { b: '2' }] });
    expect(compile('a = 1 b = 2 OR c = 3')).toEqual({ $and: [{ a: '1' }, { $or: [{ b: '2' }, { c: '3' }] }] });
  });

  it('flattens nested AND and OR', () => {
    expect(compile('a = 1 AND (b = 2 AND c = 3)')).toEqual({ $and: [{ a: '1' }, { b: '2' }, { c: '3' }] });
    expect(compile('a = 1 OR (b = 2 OR c = 3)')).toEqual({ $or: [{ a: '1' }, { b: '2' }, { c: '3' }] });
  });

  it('honours parentheses', () => {
    expect(compile('(a = 1 AND b = 2) OR c = 3')).toEqual({ $or: [{ $and: [{ a: '1' }, { b: '2' }] }, { c: '3' }] });
    expect(compile('((a = 1))')).toEqual({ a: '1' });
  });

  it('negates with NOT and with a leading minus', () => {
    expect(compile("NOT a = 'x'")).toEqual({ $nor: [{ a: 'x' }] });
    expect(compile("-a = 'x'")).toEqual({ $nor: [{ a: 'x' }] });
    expect(compile('NOT (a = 1 OR b = 2)')).toEqual({ $nor: [{ $or: [{ a: '1' }, { b: '2' }] }] });
    expect(compile('-(a = 1)')).toEqual({ $nor: [{ a: '1' }] });
    // NOT applies to one term only.
    expect(compile('NOT a = 1 OR b = 2')).toEqual({ $or: [{ $nor: [{ a: '1' }] }, { b: '2' }] });
    expect(compile('-services:x')).toEqual({ $nor: [{ services: 'x' }] });
  });

  it('reads negative numbers on the argument side, not as negation', () => {
    expect(compile('count > -5')).toEqual({ count: { $gt: -5 } });
    expect(compile('count>=-1.5')).toEqual({ count: { $gte: -1.5 } });
  });

  it('distributes a comparison over a parenthesised argument', () => {
    expect(compile('status = (DEPLOYMENT_STATUS_PENDING OR DEPLOYMENT_STATUS_SUCCESS)')).toEqual({
      $or: [{ status: 'DEPLOYMENT_STATUS_PENDING' }, { status: 'DEPLOYMENT_STATUS_SUCCESS' }],
    });
  });
});

describe('compileFilter: strings', () => {
  it('accepts both quote styles and decodes escapes', () => {
    expect(compile(`a = "x y"`)).toEqual({ a: 'x y' });
    expect(compile(`a = 'x y'`)).toEqual({ a: 'x y' });
    expect(compile(`a = 'it\\'s'`)).toEqual({ a: "it's" });
    expect(compile(`a = "say \\"hi\\""`)).toEqual({ a: 'say "hi"' });
    expect(compile(`a = "it's"`)).toEqual({ a: "it's" });
    expect(compile(`a = 'back\\\\slash\\n\\t\\u00e9\\x41'`)).toEqual({ a: 'back\\slash\n\téA' });
    expect(compile(`a = 'AND OR NOT ) ('`)).toEqual({ a: 'AND OR NOT ) (' });
  });

  it('accepts bare values and dotted bare values for strings', () => {
    expect(compile('a = hello')).toEqual({ a: 'hello' });
    expect(compile('a = v1.2.3')).toEqual({ a: 'v1.2.3' });
    expect(compile('a = 42')).toEqual({ a: '42' });
  });

  it('compiles a leading and/or trailing "*" on =, != and ":" to literal suffix, prefix and contains patterns', () => {
    expect(compile("display_name = 'text*'")).toEqual({ displayName: { $regex: '^text' } });
    expect(compile("display_name = '*text'")).toEqual({ displayName: { $regex: 'text(?![\\s\\S])' } });
    expect(compile("display_name = '*text*'")).toEqual({ displayName: { $regex: 'text' } });
    expect(compile("display_name : '*text*'")).toEqual({ displayName: { $regex: 'text', $options: 'i' } });
    expect(compile("display_name:'text*'")).toEqual({ displayName: { $regex: '^text', $options: 'i' } });
    expect(compile("display_name != 'text*'")).toEqual({ $nor: [{ displayName: { $regex: '^text' } }] });
    expect(compile("display_name = '*a.b(c)$*'")).toEqual({ displayName: { $regex: 'a\\.b\\(c\\)\\$' } });
    expect(compile("display_name = 'tab\\t*'")).toEqual({ displayName: { $regex: '^tab\\x09' } });
    // `*` alone (and `**`) on = matches every string value.
    expect(compile("a = '*'")).toEqual({ a: { $regex: '^' } });
    expect(compile("a = '**'")).toEqual({ a: { $regex: '^' } });
  });

  it('treats a star anywhere else, or escaped, as a literal star', () => {
    expect(compile("a = 'a*b'")).toEqual({ a: 'a*b' });
    expect(compile("a:'a*b'")).toEqual({ a: 'a*b' });
    expect(compile("a != 'a*b'")).toEqual({ a: { $ne: 'a*b' } });
    expect(compile("a = '*a*a*b'")).toEqual({ a: { $regex: 'a\\*a\\*b(?![\\s\\S])' } });
    expect(compile("a:'\\*lit*'")).toEqual({ a: { $regex: '^\\*lit', $options: 'i' } });
    expect(compile("a:'\\*lit\\*'")).toEqual({ a: '*lit*' });
    expect(compile("a:'text'")).toEqual({ a: 'text' });
    expect(matches("a = 'x*y'", { a: 'x*y' })).toBe(true);
    expect(matches("a = 'x*y'", { a: 'xzzy' })).toBe(false);
    expect(matches("a = '*a*b'", { a: 'xa*b' })).toBe(true);
    expect(matches("a = '*a*b'", { a: 'xazb' })).toBe(false);
  });

  it('matches wildcards on "=" as case-sensitively as "=", and on ":" (substring search) ignoring case', () => {
    const doc = { displayName: 'Checkout Service (prod)' };
    expect(matches("display_name = '*Service*'", doc)).toBe(true);
    expect(matches("display_name = '*service*'", doc)).toBe(false);
    expect(matches("display_name != '*service*'", doc)).toBe(true);
    expect(matches("display_name:'Checkout*'", doc)).toBe(true);
    expect(matches("display_name:'checkout*'", doc)).toBe(true);
    expect(matches("display_name:'*SERVICE*'", doc)).toBe(true);
    expect(matches("display_name:'*(PROD)'", doc)).toBe(true);
    expect(matches("display_name:'*(PROD'", doc)).toBe(false);
    expect(matches("display_name = '*(prod)'", doc)).toBe(true);
    expect(matches("display_name = '*(PROD)'", doc)).toBe(false);
    expect(matches("display_name = 'Service*'", doc)).toBe(false);
    expect(matches("display_name = '*Checkout'", doc)).toBe(false);
    expect(matches("display_name = '*.*'", doc)).toBe(false);
    expect(matches("display_name = '*'", doc)).toBe(true);
    expect(matches("display_name = '*'", {})).toBe(false);
    expect(matches("display_name = '*service*'", { displayName: 'line one\nservice' })).toBe(true);
    // The end of a suffix is the end of the value, not a final newline (as `$` would allow in PCRE).
    expect(matches("display_name = '*service'", { displayName: 'a service\n' })).toBe(false);
  });

  it('negates wildcards with "!=", which also holds for a missing field', () => {
    expect(matches("display_name != '*Service*'", { displayName: 'Checkout Service' })).toBe(false);
    expect(matches("display_name != '*Service*'", { displayName: 'Checkout' })).toBe(true);
    expect(matches("display_name != 'Check*'", {})).toBe(true);
  });

  it('matches adversarial wildcards over a 100,000-character value in linear time', () => {
    // The regex these once compiled to, /a[\s\S]*a[\s\S]*b$/i, takes cubic time here: it would not finish.
    const long = { displayName: 'a'.repeat(100_000) };
    expect(matches("display_name:'*a*a*b'", long)).toBe(false);
    expect(filterQuery(compile('display_name = "*a*a*b*"')).test(long)).toBe(false);
    expect(filterQuery(compile(`display_name = "*${'a'.repeat(4000)}b*"`)).test(long)).toBe(false);
    expect(filterQuery(compile(`display_name = "*${'a'.repeat(4000)}"`)).test(long)).toBe(true);
    expect(filterQuery(compile(`display_name = "${'a'.repeat(4000)}b*"`)).test(long)).toBe(false);
  });

  it('tests presence as a non-default value, per type', () => {
    expect(compile('a:*')).toEqual({ a: { $gt: '' } });
    expect(compile("create_time:'*'")).toEqual({ createTime: { $gt: '' } });
    expect(compile('status:*')).toEqual({ status: { $gt: '' } });
    expect(compile("count:'*'")).toEqual({ $or: [{ count: { $gt: 0 } }, { count: { $lt: 0 } }] });
    expect(compile('enabled:*')).toEqual({ enabled: true });
    expect(compile('services:*')).toEqual({ 'services.0': { $exists: true } });
    expect(compile('labels:*')).toEqual({ labels: { $type: 'object', $ne: {} } });
    expect(compile('NOT a:*')).toEqual({ $nor: [{ a: { $gt: '' } }] });
  });

  it('finds an empty string, list or map, zero, false, null and missing not present', () => {
    const present = (text: string, doc: Record<string, unknown>) => [matches(text, doc), matches(`NOT ${text}`, doc)];
    const yes = [true, false];
    const no = [false, true];
    expect(present('a:*', { a: 'x' })).toEqual(yes);
    expect(present('a:*', { a: '' })).toEqual(no);
    expect(present('a:*', { a: null })).toEqual(no);
    expect(present('a:*', {})).toEqual(no);
    expect(present('count:*', { count: 3 })).toEqual(yes);
    expect(present('count:*', { count: -0.5 })).toEqual(yes);
    expect(present('count:*', { count: 0 })).toEqual(no);
    expect(present('enabled:*', { enabled: true })).toEqual(yes);
    expect(present('enabled:*', { enabled: false })).toEqual(no);
    expect(present('services:*', { services: ['x'] })).toEqual(yes);
    expect(present('services:*', { services: [] })).toEqual(no);
    expect(present('labels:*', { labels: { a: '1' } })).toEqual(yes);
    expect(present('labels:*', { labels: {} })).toEqual(no);
    expect(present('labels:*', {})).toEqual(no);
    expect(present('labels.env:*', { labels: { env: 'prod' } })).toEqual(yes);
    expect(present('labels.env:*', { labels: { env: '' } })).toEqual(no);
    expect(present('create_time:*', { createTime: '2024-01-01T00:00:00.000Z' })).toEqual(yes);
  });
});

describe('compileFilter: field names and maps', () => {
  it('accepts lowerCamelCase aliases', () => {
    expect(compile("toolName = 'x'")).toEqual({ toolName: 'x' });
    expect(compile("tool_name = 'x'")).toEqual({ toolName: 'x' });
    expect(compile('createTime > "2024-01-01T00:00:00Z"')).toEqual({ createTime: { $gt: '2024-01-01T00:00:00.000Z' } });
  });

  it('compiles map keys verbatim', () => {
    expect(compile("labels.environment = 'prod'")).toEqual({ 'labels.environment': 'prod' });
    expect(compile("labels.team_name != 'x'")).toEqual({ 'labels.team_name': { $ne: 'x' } });
    expect(compile('labels."app.kubernetes.io/name" = web')).toEqual({ 'labels.app.kubernetes.io/name': 'web' });
    expect(compile("labels.environment:'pr*'")).toEqual({ 'labels.environment': { $regex: '^pr', $options: 'i' } });
    expect(compile("labels.environment = '*od'")).toEqual({ 'labels.environment': { $regex: 'od(?![\\s\\S])' } });
  });

  it('tests map keys with ":"', () => {
    expect(compile('labels:environment')).toEqual({ 'labels.environment': { $exists: true } });
    expect(compile("labels:'team_name'")).toEqual({ 'labels.team_name': { $exists: true } });
    expect(compile('labels.environment:*')).toEqual({ 'labels.environment': { $gt: '' } });
    expect(matches('labels:environment', { labels: { environment: 'prod' } })).toBe(true);
    expect(matches('labels:environment', { labels: { team: 'x' } })).toBe(false);
  });

  it('resolves dotted schema names', () => {
    expect(compile("target.kind = 'x'")).toEqual({ 'target.kind': 'x' });
  });

  it('compiles ":" on string[] to element equality', () => {
    expect(compile("services:'services/1'")).toEqual({ services: 'services/1' });
    expect(matches("services:'services/1'", { services: ['services/0', 'services/1'] })).toBe(true);
    expect(matches("services:'services/1'", { services: ['services/2'] })).toBe(false);
    expect(compile("services:'services/*'")).toEqual({ services: { $regex: '^services\\/', $options: 'i' } });
    expect(matches("services:'services/*'", { services: ['x', 'services/2'] })).toBe(true);
    expect(matches("services:'*/2'", { services: ['services/1'] })).toBe(false);
  });
});

describe('compileFilter: typed values', () => {
  it('reads enums quoted or bare', () => {
    expect(compile('status = DEPLOYMENT_STATUS_PENDING')).toEqual({ status: 'DEPLOYMENT_STATUS_PENDING' });
    expect(compile("status = 'DEPLOYMENT_STATUS_SUCCESS'")).toEqual({ status: 'DEPLOYMENT_STATUS_SUCCESS' });
    expect(compile('status != DEPLOYMENT_STATUS_PENDING')).toEqual({ status: { $ne: 'DEPLOYMENT_STATUS_PENDING' } });
  });

  it('reads booleans', () => {
    expect(compile('enabled = true')).toEqual({ enabled: true });
    expect(compile("enabled = 'false'")).toEqual({ enabled: false });
    expect(compile('enabled != false')).toEqual({ enabled: { $ne: false } });
  });

  it('reads numbers', () => {
    expect(compile('count = 10')).toEqual({ count: 10 });
    expect(compile('count = 2.5')).toEqual({ count: 2.5 });
    expect(compile('count < 1e3')).toEqual({ count: { $lt: 1000 } });
    expect(compile("count = '7'")).toEqual({ count: 7 });
  });

  it('normalises timestamps to toISOString form', () => {
    expect(compile("create_time >= '2024-01-02T03:04:05Z'")).toEqual({ createTime: { $gte: '2024-01-02T03:04:05.000Z' } });
    expect(compile('create_time < "2024-01-02T03:04:05+02:00"')).toEqual({ createTime: { $lt: '2024-01-02T01:04:05.000Z' } });
    expect(compile("create_time = '2024-01-02t03:04:05.123456z'")).toEqual({ createTime: '2024-01-02T03:04:05.123Z' });
    expect(normaliseTimestamp('2024-02-29T00:00:00Z')).toBe('2024-02-29T00:00:00.000Z');
    expect(normaliseTimestamp('2023-02-29T00:00:00Z')).toBeUndefined();
    expect(normaliseTimestamp('2024-01-01')).toBeUndefined();
    expect(normaliseTimestamp('2024-01-01T24:00:00Z')).toBeUndefined();
    expect(normaliseTimestamp('2024-01-01T00:00:00')).toBeUndefined();
  });

  it('compares timestamps as strings against stored documents', () => {
    const doc = { createTime: new Date('2024-05-01T10:00:00Z').toISOString() };
    expect(matches("create_time > '2024-05-01T09:59:59.999Z'", doc)).toBe(true);
    expect(matches("create_time > '2024-05-01T12:00:00+02:00'", doc)).toBe(false);
    expect(matches("create_time >= '2024-05-01T12:00:00+02:00'", doc)).toBe(true);
  });

  it('evaluates a realistic filter against documents', () => {
    const text = "status = DEPLOYMENT_STATUS_SUCCESS AND labels.environment = 'prod' AND -enabled = false";
    expect(matches(text, { status: 'DEPLOYMENT_STATUS_SUCCESS', labels: { environment: 'prod' }, enabled: true })).toBe(true);
    expect(matches(text, { status: 'DEPLOYMENT_STATUS_SUCCESS', labels: { environment: 'prod' }, enabled: false })).toBe(false);
    expect(matches(text, { status: 'DEPLOYMENT_STATUS_PENDING', labels: { environment: 'prod' }, enabled: true })).toBe(false);
  });
});

describe('compileFilter: errors', () => {
  it('reports syntax errors with the column', () => {
    expectInvalid("a = 'x' AND b = 1)", "filter: unexpected ')' at column 18");
    expectInvalid("(a = 'x'", 'filter: unexpected end of input at column 9');
    expectInvalid('a = ', 'filter: unexpected end of input at column 5');
    expectInvalid('a = 1 AND', 'filter: unexpected end of input at column 10');
    expectInvalid('AND a = 1', "filter: unexpected 'AND' at column 1");
    expectInvalid('a = 1 OR OR b = 2', "filter: unexpected 'OR' at column 10");
    expectInvalid('a == 1', "filter: unexpected '=' at column 4");
    expectInvalid('a ! 1', "filter: unexpected '!' at column 3");
    expectInvalid("a = 'x", 'filter: unterminated string starting at column 5');
    expectInvalid("a = 'x\\q'", "filter: invalid escape '\\q' at column 7");
    expectInvalid('a = 1, b = 2', "filter: unexpected ',' at column 6");
    expectInvalid('()', "filter: unexpected ')' at column 2");
    expectInvalid('a = 1 AND(b = 2)x', "filter: unexpected 'x' at column 17");
  });

  it('rejects function calls and bare values', () => {
    expectInvalid('a = f(1)', 'filter: function calls are not supported (column 5)');
    expectInvalid('prod', "filter: bare value 'prod' at column 1 is not supported; compare a field, e.g. field = value");
    expectInvalid(
      'a = 1 and b = 2',
      "filter: 'and' at column 7 is not an operator; AND, OR and NOT must be upper case",
    );
    expectInvalid('a = (1 OR b = 2)', /parenthesised argument/);
  });

  it('names unknown fields and lists the filterable ones', () => {
    expectInvalid(
      "foo = 'x'",
      "filter: unknown field 'foo'; filterable fields are: display_name, tool_name, a, b, c, count, enabled, create_time, status, labels, services, target.kind",
    );
    expectInvalid('tool_name.x = 1', "filter: field 'tool_name' has no sub-fields; got 'tool_name.x'");
  });

  it('names values of the wrong type', () => {
    expectInvalid('enabled = yes', "filter: field 'enabled' is boolean, got 'yes'");
    expectInvalid("count = 'ten'", "filter: field 'count' is number, got 'ten'");
    expectInvalid('count = 0x10', "filter: field 'count' is number, got '0x10'");
    expectInvalid(
      "create_time > 'yesterday'",
      "filter: field 'create_time' is timestamp, got 'yesterday' (expected RFC 3339, e.g. '2024-01-31T12:00:00Z')",
    );
    expectInvalid("create_time > '2024-02-30T00:00:00Z'", /is timestamp, got '2024-02-30T00:00:00Z'/);
    expectInvalid(
      'status = DONE',
      "filter: field 'status' is enum, got 'DONE'; allowed values are: DEPLOYMENT_STATUS_PENDING, DEPLOYMENT_STATUS_SUCCESS",
    );
  });

  it('rejects operators the type does not support', () => {
    expectInvalid('enabled < true', "filter: operator '<' is not allowed on boolean field 'enabled'");
    expectInvalid('status > DEPLOYMENT_STATUS_PENDING', "filter: operator '>' is not allowed on enum field 'status'");
    expectInvalid("services = 'x'", "filter: operator '=' is not allowed on string[] field 'services'; use ':' to test for an element");
    expectInvalid("labels = 'x'", /field 'labels' is a map/);
  });
});

describe('compileFilter: map keys and traversal', () => {
  it('refuses traversal through a map value or a declared scalar', () => {
    expectInvalid(
      "labels.env.nested = 'x'",
      "filter: 'labels.env.nested' traverses through a value of map 'labels'; map values are strings, use labels.<key>",
    );
    expectInvalid('labels.env.nested:*', /traverses through a value of map 'labels'/);
    expectInvalid("display_name.first = 'x'", "filter: field 'display_name' has no sub-fields; got 'display_name.first'");
    expectInvalid("services.x = 'y'", "filter: field 'services' has no sub-fields; got 'services.x'");
    expectInvalid('count.x = 1', "filter: field 'count' has no sub-fields; got 'count.x'");
  });

  it('refuses __proto__ as a field or map key instead of reaching a prototype', () => {
    expectInvalid('labels.__proto__ = "x"', "filter: '__proto__' at column 1 cannot name a field or map key");
    expectInvalid('labels:__proto__', "filter: '__proto__' at column 8 cannot name a field or map key");
    expectInvalid('__proto__ = 1', /'__proto__' at column 1 cannot name a field or map key/);
    expectInvalid('labels."__proto__" = "x"', /cannot name a field or map key/);
  });

  it('filters on keys named like Object.prototype members as on any other key', () => {
    for (const key of ['toString', 'valueOf', 'hasOwnProperty', 'constructor', 'prototype', 'isPrototypeOf']) {
      const doc = { labels: { [key]: 'x' } };
      expect(matches(`labels.${key} = "x"`, doc)).toBe(true);
      expect(matches(`labels.${key} = "x"`, { labels: { other: 'x' } })).toBe(false);
      expect(matches(`labels.${key} != "x"`, { labels: {} })).toBe(true);
      expect(matches(`labels:${key}`, doc)).toBe(true);
      expect(matches(`labels:${key}`, { labels: {} })).toBe(false);
      expect(matches(`labels.${key}:*`, { labels: {} })).toBe(false);
      expect(matches(`labels.${key} = "x*"`, { labels: {} })).toBe(false);
    }
  });
});

describe('compileFilter: limits', () => {
  const { maxLength, maxDepth, maxTerms } = FILTER_LIMITS;
  const ors = (n: number) => Array.from({ length: n }, () => 'a=1').join(' OR ');
  const values = (n: number) => `a = (${Array.from({ length: n }, () => 'v').join(' OR ')})`;

  it('refuses text over the length limit before reading it', () => {
    expect(() => compile(`a = "${'x'.repeat(maxLength - 6)}"`)).not.toThrow();
    expectInvalid(`a = "${'x'.repeat(maxLength - 5)}"`, `filter: ${maxLength + 1} characters long; the limit is ${maxLength}`);
    expectInvalid('('.repeat(1_000_000), `filter: 1000000 characters long; the limit is ${maxLength}`);
  });

  it('refuses nesting past the depth limit, without recursing into it', () => {
    const parens = (n: number) => `${'('.repeat(n)}a = 1${')'.repeat(n)}`;
    const negations = (n: number) => `${'NOT ('.repeat(n)}a = 1${')'.repeat(n)}`;
    expect(compile(parens(maxDepth))).toEqual({ a: '1' });
    expect(compile(`${'-('.repeat(maxDepth / 2)}a = 1${')'.repeat(maxDepth / 2)}`)).toEqual({ $nor: [{ $nor: expect.any(Array) }] });
    const message = `filter: more than ${maxDepth} nested parentheses and negations (limit reached at column ${maxDepth + 1})`;
    expectInvalid(parens(maxDepth + 1), message);
    expectInvalid(parens(3000), message);
    expectInvalid(negations(500), /more than 32 nested parentheses and negations/);
    expectInvalid(`a = ${'('.repeat(maxDepth + 1)}v${')'.repeat(maxDepth + 1)}`, /more than 32 nested parentheses and negations/);
  });

  it('refuses more terms than the limit, counting the values of parenthesised arguments', () => {
    expect(compile(ors(maxTerms)).$or).toHaveLength(maxTerms);
    expect(ors(1000).length).toBeLessThan(maxLength);
    expect(compile(values(maxTerms - 1)).$or).toHaveLength(maxTerms - 1);
    expectInvalid(ors(maxTerms + 1), /^filter: more than 200 terms \(comparisons, and values of parenthesised arguments; limit reached at column \d+\)$/);
    expectInvalid(ors(1000), /more than 200 terms/);
    expectInvalid(values(maxTerms), /more than 200 terms/);
    expectInvalid(values(1000), /more than 200 terms/);
  });

  it('refuses malformed Unicode: a lone surrogate, written or escaped', () => {
    expectInvalid('a = "x\ud800"', 'filter: lone UTF-16 surrogate at column 7; a filter is Unicode text');
    expectInvalid('a = "\\ud800"', "filter: invalid escape '\\ud800' at column 6");
    expect(compile('a = "\\U0001F600*"')).toEqual({ a: { $regex: '^\u{1F600}' } });
  });

  it('caps the user text it quotes in messages', () => {
    expectInvalid(`count = "${'9'.repeat(50)}x"`, `filter: field 'count' is number, got '${'9'.repeat(27)}...'`);
    expectInvalid(`${'f'.repeat(100)} = 1`, new RegExp(`^filter: unknown field '${'f'.repeat(27)}\\.\\.\\.'`));
  });
});
