/**
 * TOOL_HTTP_REQUEST against a real local HTTP server (127.0.0.1): requests, the connection's headers
 * and credentials, the body and time caps, redirects, and the private-address guard refusing before
 * any connection is made.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_TOOL_LIMITS, ToolConnection, ToolContext, ToolError, ToolLimits } from '../tool-adapter.port';
import { HostLookup } from './address-guard';
import { HttpToolAdapter } from './http.adapter';

const TOKEN = 'partner-token-secret';
let server: Server;
let port: number;
let connections = 0;
const bigBody = { finished: false, closed: false };

function echo(req: IncomingMessage, res: ServerResponse, body: string): void {
  res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': 'session=abc', 'x-served-by': 'local' });
  res.end(
    JSON.stringify({
      method: req.method,
      url: req.url,
      host: req.headers.host,
      authorized: req.headers.authorization === `Bearer ${TOKEN}`,
      tenant: req.headers['x-tenant'],
      trace: req.headers['x-trace'],
      contentType: req.headers['content-type'],
      body,
    }),
  );
}

async function streamBig(res: ServerResponse): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.on('close', () => (bigBody.closed = true));
  const chunk = Buffer.alloc(64 * 1024, 'a');
  for (let i = 0; i < 512 && !res.destroyed; i++) {
    if (res.write(chunk)) continue;
    await new Promise<void>((resolve) => {
      const done = () => {
        res.off('drain', done).off('close', done);
        resolve();
      };
      res.on('drain', done).on('close', done);
    });
  }
  if (!res.destroyed) res.end(() => (bigBody.finished = true));
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0];
      if (path === '/api/echo') echo(req, res, body);
      else if (path === '/api/big') void streamBig(res);
      else if (path === '/api/reflect') {
        // Echoes the credentials it got, as httpbin's /headers does.
        const auth = String(req.headers.authorization);
        res.writeHead(200, { 'content-type': 'application/json', 'x-echo': auth });
        res.end(JSON.stringify({ authorization: auth, key: req.headers['x-api-key'] }));
      }
      else if (path === '/api/slow') setTimeout(() => res.writeHead(200).end('late'), 5_000).unref();
      else if (path === '/api/trickle') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const timer = setInterval(() => res.write('.'), 50);
        res.on('close', () => clearInterval(timer));
      } else if (path === '/api/away') res.writeHead(302, { location: 'http://evil.example/steal?k=1' }).end();
      else if (path === '/api/escape') res.writeHead(301, { location: '/admin' }).end();
      else if (path === '/api/moved') res.writeHead(307, { location: '/api/echo?moved=1' }).end();
      else if (path === '/api/see-other') res.writeHead(303, { location: 'echo?after=post' }).end();
      else if (path === '/api/loop') res.writeHead(302, { location: '/api/loop' }).end();
      else if (path === '/api/image') res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(100));
      else res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"no such route"}');
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const context = (limits: Partial<ToolLimits> = {}): ToolContext => ({ limits: { ...DEFAULT_TOOL_LIMITS, ...limits } });
const local = (details: Record<string, unknown> = {}): ToolConnection => ({
  name: 'connections/partner',
  type: 'CONNECTION_TYPE_HTTP',
  details: { base_url: `http://127.0.0.1:${port}/api`, allow_private_host: true, token: TOKEN, headers: { 'X-Tenant': 'acme' }, ...details },
});

async function failure(promise: Promise<unknown>): Promise<ToolError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  if (!(error instanceof ToolError)) throw new Error(`expected a ToolError, got ${String(error)}`);
  return error;
}

describe('TOOL_HTTP_REQUEST to a local server its connection allows', () => {
  const adapter = new HttpToolAdapter();
  afterAll(() => adapter.close());

  it('GETs a path under the base URL with the query, the connection headers and its credentials added; the answer is parsed JSON', async () => {
    const result = await adapter.run('TOOL_HTTP_REQUEST', { method: 'GET', path: '/echo', query: { q: 'a b', n: 2 }, headers: { 'X-Trace': 't-1' } }, local(), context());
    expect(result).toMatchObject({
      status: 200,
      body: { method: 'GET', url: '/api/echo?q=a+b&n=2', authorized: true, tenant: 'acme', trace: 't-1' },
      headers: { 'content-type': 'application/json', 'x-served-by': 'local' },
    });
    // Cookies the server sets are not handed to the model; the token is nowhere in the result.
    expect(result.headers).not.toHaveProperty('set-cookie');
    expect(JSON.stringify(result)).not.toContain(TOKEN);
    expect(result).not.toHaveProperty('truncated');
  });

  it("sends the base URL's own query parameters with every request; the model's cannot replace them", async () => {
    const withKey = local({ base_url: `http://127.0.0.1:${port}/api?key=base-key` });
    const result = await adapter.run('TOOL_HTTP_REQUEST', { method: 'GET', path: 'echo?key=mine', query: { page: 1 } }, withKey, context());
    expect(result).toMatchObject({ status: 200, body: { url: '/api/echo?page=1&key=base-key' } });
  });

  it('never hands the connection\'s secrets to the model, even from a server that echoes them', async () => {
    const result = await adapter.run('TOOL_HTTP_REQUEST', { method: 'GET', path: 'reflect' }, local({ api_key: 'partner-api-key-1' }), context());
    expect(result).toMatchObject({ status: 200, body: { authorization: '[redacted]', key: '[redacted]' }, headers: { 'x-echo': '[redacted]' } });
    expect(JSON.stringify(result)).not.toMatch(/partner-token-secret|partner-api-key-1/);
  });

  it('POSTs a JSON body', async () => {
    const result = await adapter.run('TOOL_HTTP_REQUEST', { method: 'POST', path: 'echo', body: { incident: 42 } }, local(), context());
    expect(result).toMatchObject({ status: 200, body: { method: 'POST', contentType: 'application/json', body: '{"incident":42}' } });
  });

  it('answers an HTTP error status as a result the model reads, not as a failure', async () => {
    expect(await adapter.run('TOOL_HTTP_REQUEST', { method: 'GET', path: 'missing' }, local(), context())).toMatchObject({ status: 404, body: { error: 'no such route' } });
  });

  it('refuses a model header that would replace the credentials, before sending anything', async () => {
    const before = connections;
    const error = await failure(adapter.run('TOOL_HTTP_REQUEST', { method: 'GET', path: 'echo', headers: { Authorization: 'Bearer stolen' } }, local(), context()));
    expect([error.code, error.message]).toEqual(['INVALID_ARGUMENT', "header 'Authorization' may not be set by a tool call"]);
    expect(connections).toBe(before);
  });

  it('stops reading a body at maxBytes and says it was cut; the server is not read to the end', async () => {
    bigBody.finished = false;
    bigBody.closed = false;
    const result = await adapter.run('TOOL_HTTP_REQUEST', { method: 'GET', path: 'big' }, local(), context({ maxBytes: 4096 }));
    expect(result).toMatchObject({ status: 200, truncated: true, truncation: expect.stringContaining('body cut at 4096 bytes (maxBytes)') });
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(4096);
    expect((result.body as string).length).toBeGreaterThan(3000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(bigBody).toEqual({ finished: false, closed: true });
  });

  it('cuts a call that answers too late, or whose body trickles past the time limit, as DEADLINE_EXCEEDED', async () => {
    for (const path of ['slow', 'trickle']) {
      const started = Date.now();
      const error = await failure(adapter.run('TOOL_HTTP_REQUEST', { method: 'GET', path }, local(), context({ timeoutMs: 300 })));
      expect([path, error.code, error.message]).toEqual([path, 'DEADLINE_EXCEEDED', 'connections/partner: no complete answer within 300 ms']);
      expect(Date.now() - started).toBeLessThan(2_000);
    }
    // The connection's own timeout_seconds lowers the limit further.
    const error = await failure(adapter.run('TOOL_HTTP_REQUEST', { method: 'GET', path: 'slow' }, local({ timeout_seconds: 0.2 }), context()));
    expect(error.message).toBe('connections/partner: no complete answer within 200 ms');
  });

  it('refuses a redirect off the base origin, or out of the base path, and says where it led', async () => {
    const away = await failure(adapter.run('TOOL_HTTP_REQUEST', { method: 'GET', path: 'away' }, local(), context()));
    expect([away.code, away.message]).toEqual([
      'PERMISSION_DENIED',
      `connections/partner: the server redirected (HTTP 302) to http://evil.example/steal, outside the connection's base URL http://127.0.0.1:${port}/api/; not followed`,
    ]);
    expect((await failure(adapter.run('TOOL_HTTP_REQUEST', { method: 'GET', path: 'escape' }, local(), context()))).message).toMatch(/redirected \(HTTP 301\) to http:\/\/127\.0\.0\.1:\d+\/admin, outside/);
  });

  it('follows a redirect that stays under the base URL, as a browser would, up to 3', async () => {
    expect(await adapter.run('TOOL_HTTP_REQUEST', { method: 'PUT', path: 'moved', body: 'kept' }, local(), context())).toMatchObject({
      status: 200,
      redirects: 1,
      body: { method: 'PUT', url: '/api/echo?moved=1', body: 'kept', authorized: true },
    });
    expect(await adapter.run('TOOL_HTTP_REQUEST', { method: 'POST', path: 'see-other', body: { a: 1 } }, local(), context())).toMatchObject({
      status: 200,
      body: { method: 'GET', url: '/api/echo?after=post', body: '' },
    });
    const loop = await failure(adapter.run('TOOL_HTTP_REQUEST', { method: 'GET', path: 'loop' }, local(), context()));
    expect([loop.code, loop.message]).toEqual(['UNAVAILABLE', 'connections/partner: more than 3 redirects']);
  });

  it('does not hand back binary content', async () => {
    expect(await adapter.run('TOOL_HTTP_REQUEST', { method: 'GET', path: 'image' }, local(), context())).toMatchObject({ status: 200, body: null, bodyOmitted: '100 bytes of image/png (not text)' });
  });

  it('connects to the address it vetted: a name is resolved once, and the request goes there whatever DNS says later', async () => {
    let lookups = 0;
    // Answers 127.0.0.1 first, then an address nothing listens on: a second resolution would fail.
    const rebinding: HostLookup = async () => [{ address: lookups++ === 0 ? '127.0.0.1' : '10.255.255.1', family: 4 }];
    const pinned = new HttpToolAdapter(rebinding);
    const result = await pinned.run('TOOL_HTTP_REQUEST', { method: 'GET', path: 'echo' }, local({ base_url: `http://partner.test:${port}/api` }), context({ timeoutMs: 2_000 }));
    expect(result).toMatchObject({ status: 200, body: { host: `partner.test:${port}`, authorized: true } });
    expect(lookups).toBe(1);
  });

  it('answers UNAVAILABLE, naming the connection, when nothing listens', async () => {
    const closed = await failure(adapter.run('TOOL_HTTP_REQUEST', { method: 'GET', path: 'x' }, local({ base_url: 'http://127.0.0.1:1/api' }), context()));
    expect([closed.code, closed.message]).toEqual(['UNAVAILABLE', 'connections/partner: http://127.0.0.1:1 cannot be reached (ECONNREFUSED)']);
  });
});

describe('TOOL_HTTP_REQUEST with the private-address guard on', () => {
  const adapter = new HttpToolAdapter();
  const guarded = (baseUrl: string): ToolConnection => ({ name: 'connections/partner', type: 'CONNECTION_TYPE_HTTP', details: { base_url: baseUrl, token: TOKEN } });

  it.each([
    ['127.0.0.1', () => `http://127.0.0.1:${port}/api`, /host '127\.0\.0\.1' is a loopback address/],
    ['10.x', () => 'http://10.1.2.3/api', /host '10\.1\.2\.3' is a private address/],
    ['the metadata service', () => 'http://169.254.169.254/latest', /host '169\.254\.169\.254' is a linkLocal address/],
    ['[::1]', () => `http://[::1]:${port}/api`, /host '\[::1\]' is a loopback address/],
    ['::ffff:127.0.0.1', () => `http://[::ffff:127.0.0.1]:${port}/api`, /host '\[::ffff:7f00:1\]' is an IPv4-mapped loopback address/],
    ['localhost', () => `http://localhost:${port}/api`, /host 'localhost' is resolved to (127\.0\.0\.1|::1), a loopback address/],
  ])('refuses %s with PERMISSION_DENIED before any connection is made', async (_, baseUrl, message) => {
    const before = connections;
    const started = Date.now();
    const error = await failure(adapter.run('TOOL_HTTP_REQUEST', { method: 'GET', path: 'echo' }, guarded(baseUrl()), context()));
    expect([error.code, error.message]).toEqual(['PERMISSION_DENIED', expect.stringMatching(message)]);
    expect(error.message).toMatch(/allow_private_host/);
    expect(error.message).not.toContain(TOKEN);
    expect(connections).toBe(before);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
