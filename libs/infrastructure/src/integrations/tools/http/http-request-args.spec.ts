import { ToolError } from '../tool-adapter.port';
import { addQuery, baseUrlOf, bodyOf, mergeHeaders, methodOf, resolvePath } from './http-request-args';

function failure(run: () => unknown): ToolError {
  try {
    run();
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error('expected a ToolError');
}

const base = baseUrlOf('https://api.example.com/v2', 'connections/partner');

describe('resolving a path under the base URL', () => {
  it.each([
    ['users/7', 'https://api.example.com/v2/users/7'],
    ['/users/7', 'https://api.example.com/v2/users/7'],
    ['', 'https://api.example.com/v2/'],
    ['users/./7/../8?x=1#frag', 'https://api.example.com/v2/users/8?x=1'],
    ['a/%2e%2e/b', 'https://api.example.com/v2/b'],
    ['/http://evil.example/', 'https://api.example.com/v2/http://evil.example/'],
    ['search?q=a%20b', 'https://api.example.com/v2/search?q=a%20b'],
  ])('given %j, when resolved, then it is %s', (path, url) => {
    expect(resolvePath(base, path).toString()).toBe(url);
  });

  it.each([
    ['https://evil.example/x', /not an absolute URL/],
    ['javascript:alert(1)', /not an absolute URL/],
    ['//evil.example/x', /'\/\/' \(another host\)/],
    ['..', /leaves the connection's base path \/v2\//],
    ['../admin', /leaves the connection's base path/],
    ['users/../../admin', /leaves the connection's base path/],
    ['%2e%2e/admin', /leaves the connection's base path/],
    ['.%2E/admin', /leaves the connection's base path/],
    ['..%2fadmin', /encoded slash/],
    ['/\\evil.example', /backslashes/],
    ['users\t/7', /control characters/],
    ['users\n', /control characters/],
    ['x'.repeat(2049), /longer than 2048/],
  ])('given %j, when resolved, then it is INVALID_ARGUMENT (%s)', (path, message) => {
    const error = failure(() => resolvePath(base, path));
    expect([error.code, error.message]).toEqual(['INVALID_ARGUMENT', expect.stringMatching(message)]);
  });

  it('given a base URL with a trailing slash or none, when a path is resolved, then both mean the same directory', () => {
    expect(resolvePath(baseUrlOf('https://api.example.com/v2/', 'c'), 'x').toString()).toBe(resolvePath(base, 'x').toString());
    expect(resolvePath(baseUrlOf('http://127.0.0.1:8080', 'c'), '/status').toString()).toBe('http://127.0.0.1:8080/status');
  });

  it('given a base URL with credentials in it or another scheme, when read, then the connection is misconfigured and the error does not repeat it', () => {
    const error = failure(() => baseUrlOf('https://user:hunter2@api.example.com', 'connections/partner'));
    expect(error.code).toBe('FAILED_PRECONDITION');
    expect(error.message).not.toContain('hunter2');
    expect(failure(() => baseUrlOf('ftp://files.example.com', 'c')).message).toMatch(/must be http or https/);
  });
});

describe('request parts the model writes', () => {
  it('given methods in any case, when read, then they are the known ones; others are refused', () => {
    expect(methodOf('post')).toBe('POST');
    expect(methodOf(undefined)).toBe('GET');
    expect(failure(() => methodOf('CONNECT')).code).toBe('INVALID_ARGUMENT');
    expect(failure(() => methodOf('TRACE')).code).toBe('INVALID_ARGUMENT');
  });

  it('given headers, when merged, then the connection sets its own and the model cannot touch credentials, the host or the framing', () => {
    const connection = { authorization: 'Bearer secret', 'x-api-key': 'k' };
    expect(mergeHeaders({ Accept: 'application/json', 'X-Trace': 7 }, connection)).toEqual({ accept: 'application/json', 'x-trace': '7', ...connection });
    for (const name of ['Authorization', 'COOKIE', 'host', 'Proxy-Authorization', 'Content-Length', 'Transfer-Encoding']) {
      expect([name, failure(() => mergeHeaders({ [name]: 'x' }, {})).message]).toEqual([name, `header '${name}' may not be set by a tool call`]);
    }
    expect(failure(() => mergeHeaders({ 'X-Api-Key': 'mine' }, connection)).message).toBe("header 'X-Api-Key' is set by the connection");
    expect(failure(() => mergeHeaders({ 'X-Evil': 'a\r\nHost: evil' }, {})).message).toMatch(/one line/);
    expect(failure(() => mergeHeaders({ 'bad name': 'x' }, {})).message).toMatch(/not a valid header name/);
  });

  it('given a query map, when added, then scalars and lists are appended and anything else is refused', () => {
    const url = new URL('https://api.example.com/v2/search?fixed=1');
    addQuery(url, { q: 'a b', page: 2, tag: ['x', 'y'], exact: true });
    expect(url.search).toBe('?fixed=1&q=a+b&page=2&tag=x&tag=y&exact=true');
    expect(failure(() => addQuery(new URL(url), { q: { nested: 1 } })).code).toBe('INVALID_ARGUMENT');
    expect(failure(() => addQuery(new URL(url), { many: Array.from({ length: 101 }, () => 1) })).message).toMatch(/more than 100/);
  });

  it('given a body, when encoded, then text is sent as written, other values as JSON, and a body past maxBytes is refused', () => {
    const headers: Record<string, string> = {};
    expect(bodyOf({ a: 1 }, headers, 1024)?.toString()).toBe('{"a":1}');
    expect(headers['content-type']).toBe('application/json');
    const text: Record<string, string> = { 'content-type': 'text/plain' };
    expect(bodyOf('hello', text, 1024)?.toString()).toBe('hello');
    expect(text['content-type']).toBe('text/plain');
    expect(failure(() => bodyOf('x'.repeat(2000), {}, 1024)).message).toMatch(/larger than 1024 bytes \(maxBytes\)/);
  });
});
