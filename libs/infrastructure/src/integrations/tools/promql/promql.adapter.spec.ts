/**
 * What the PromQL adapter sends and how it reads answers a real Prometheus rarely gives (errors other
 * than bad_data, a proxy's page, a redirect), against a scripted local server. The real Prometheus is
 * in test/tools-promql.e2e-spec.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_TOOL_LIMITS, ToolConnection, ToolContext, ToolError } from '../tool-adapter.port';
import { PromqlToolAdapter } from './promql.adapter';

let server: Server;
let port: number;
let reply: (res: ServerResponse) => void = (res) => res.end();
const received: Array<{ method?: string; url?: string; authorization?: string; form: URLSearchParams }> = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      received.push({ method: req.method, url: req.url, authorization: req.headers.authorization, form: new URLSearchParams(raw) });
      reply(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => (received.length = 0));

const NOW = Date.parse('2026-01-01T00:00:00Z');
const adapter = new PromqlToolAdapter(() => NOW);
const context: ToolContext = { limits: { ...DEFAULT_TOOL_LIMITS, timeoutMs: 2_000 } };
const connection = (details: Record<string, unknown> = {}): ToolConnection => ({
  name: 'connections/metrics',
  type: 'CONNECTION_TYPE_PROMETHEUS',
  details: { url: `http://127.0.0.1:${port}/prom/`, token: 'prom-token-secret', ...details },
});
const json = (status: number, body: unknown) => (res: ServerResponse) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

async function failure(promise: Promise<unknown>): Promise<ToolError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  if (!(error instanceof ToolError)) throw new Error(`expected a ToolError, got ${String(error)}`);
  return error;
}

describe('the PromQL adapter', () => {
  it('POSTs the query as a form under the URL path, with the bearer token and its own timeout', async () => {
    reply = json(200, { status: 'success', data: { resultType: 'vector', result: [] } });
    expect(await adapter.run('TOOL_PROMQL_QUERY', { query: 'up', time: 'now-5m' }, connection(), context)).toEqual({ resultType: 'vector', result: [], seriesTotal: 0 });
    expect(received[0]).toMatchObject({ method: 'POST', url: '/prom/api/v1/query', authorization: 'Bearer prom-token-secret' });
    expect(Object.fromEntries(received[0].form)).toEqual({ query: 'up', time: String(NOW / 1000 - 300), timeout: '2000ms' });
  });

  it('sends credentials written in the URL as Basic, and the range with the bounded step', async () => {
    reply = json(200, { status: 'success', data: { resultType: 'matrix', result: [] } });
    const result = await adapter.run(
      'TOOL_PROMQL_QUERY_RANGE',
      { query: 'up', start: '2026-01-01T00:00:00Z', end: '2026-01-02T00:00:00Z', step: '1s' },
      connection({ url: `http://reader:pa%40ss@127.0.0.1:${port}`, token: undefined }),
      context,
    );
    expect(received[0].authorization).toBe(`Basic ${Buffer.from('reader:pa@ss').toString('base64')}`);
    expect(Object.fromEntries(received[0].form)).toMatchObject({ start: String(NOW / 1000), end: String(NOW / 1000 + 86400), step: '17.284' });
    expect(result).toMatchObject({ step: 17.284, stepRequested: 1 });
  });

  it('maps Prometheus error types: bad_data to INVALID_ARGUMENT, timeout to DEADLINE_EXCEEDED, others to UNAVAILABLE', async () => {
    for (const [errorType, code] of [['bad_data', 'INVALID_ARGUMENT'], ['timeout', 'DEADLINE_EXCEEDED'], ['execution', 'UNAVAILABLE'], ['internal', 'UNAVAILABLE']]) {
      reply = json(errorType === 'bad_data' ? 400 : 422, { status: 'error', errorType, error: `something about ${errorType}` });
      const error = await failure(adapter.run('TOOL_PROMQL_QUERY', { query: 'up' }, connection(), context));
      expect([errorType, error.code, error.message]).toEqual([errorType, code, `Prometheus: ${errorType}: something about ${errorType}`]);
    }
  });

  it("reports a proxy's page or a redirect by status alone, never its body, and does not follow the redirect", async () => {
    reply = (res) => res.writeHead(401, { 'content-type': 'text/html' }).end('<html>token prom-token-secret refused</html>');
    const denied = await failure(adapter.run('TOOL_PROMQL_QUERY', { query: 'up' }, connection(), context));
    expect([denied.code, denied.message]).toEqual(['UNAVAILABLE', `connections/metrics: Prometheus at http://127.0.0.1:${port} answered HTTP 401 without an API answer (check the connection's credentials)`]);
    reply = (res) => res.writeHead(302, { location: 'http://evil.example/' }).end();
    const moved = await failure(adapter.run('TOOL_PROMQL_QUERY', { query: 'up' }, connection(), context));
    expect(moved.message).toMatch(/answered HTTP 302 without an API answer \(a redirect, not followed\)/);
    expect(received).toHaveLength(2);
  });

  it('passes Prometheus warnings on, and refuses arguments before sending', async () => {
    reply = json(200, { status: 'success', data: { resultType: 'scalar', result: [1, '1'] }, warnings: ['PromQL info: something'] });
    expect(await adapter.run('TOOL_PROMQL_QUERY', { query: '1' }, connection(), context)).toMatchObject({ warnings: ['PromQL info: something'] });
    received.length = 0;
    expect((await failure(adapter.run('TOOL_PROMQL_QUERY_RANGE', { query: 'up', start: 'now-1h', end: 'now', step: 0 }, connection(), context))).code).toBe('INVALID_ARGUMENT');
    expect((await failure(adapter.run('TOOL_PROMQL_LIST_METRICS', { match: 42 }, connection(), context))).code).toBe('INVALID_ARGUMENT');
    expect((await failure(adapter.run('TOOL_PROMQL_QUERY', { query: 'up' }, connection({ url: 'not a url' }), context))).code).toBe('FAILED_PRECONDITION');
    expect(received).toHaveLength(0);
  });
});
