/**
 * The PromQL tools (issue 20) against a real Prometheus that this test starts (the Debian package's
 * /usr/bin/prometheus) on a free port, with a temporary configuration and storage, scraping the real
 * api's own /metrics every second: the adapter answers the service's own request rate. Without the
 * binary the tests say so and skip, unless SVC_REQUIRE_SERVERS=1 (as .ci/run sets) makes that a failure.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { PromqlToolAdapter } from '@svc/infrastructure/integrations/tools/promql/promql.adapter';
import { DEFAULT_TOOL_LIMITS, ToolConnection, ToolContext, ToolError, ToolLimits } from '@svc/infrastructure/integrations/tools/tool-adapter.port';
import { eventually, freePort, Stack, stopProcess } from './support/harness';

const PROMETHEUS = process.env.PROMETHEUS_BIN ?? '/usr/bin/prometheus';
const NOTES = 'svc.notes.v1.NotesService';
const REQUESTS = 'svc_http_request_duration_seconds_count';

function prometheusPresent(): boolean {
  const found = fs.existsSync(PROMETHEUS);
  if (!found && process.env.SVC_REQUIRE_SERVERS === '1') throw new Error(`${PROMETHEUS} is required (SVC_REQUIRE_SERVERS=1): apt-get install prometheus`);
  if (!found) console.warn(`${PROMETHEUS} not found: the PromQL tool tests against a real Prometheus are skipped (apt-get install prometheus)`);
  return found;
}

const context = (limits: Partial<ToolLimits> = {}): ToolContext => ({ limits: { ...DEFAULT_TOOL_LIMITS, ...limits } });

async function failure(promise: Promise<unknown>): Promise<ToolError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  if (!(error instanceof ToolError)) throw new Error(`expected a ToolError, got ${String(error)}`);
  return error;
}

interface VectorSample {
  metric: Record<string, string>;
  value: [number, string];
}

(prometheusPresent() ? describe : describe.skip)('PromQL tools against a real Prometheus scraping the api', () => {
  let stack: Stack;
  let prometheus: ChildProcess | undefined;
  let workDir = '';
  let connection: ToolConnection;
  let traffic: NodeJS.Timeout | undefined;
  const prometheusOutput: string[] = [];
  const adapter = new PromqlToolAdapter();

  beforeAll(async () => {
    // One process (api and projector together): lighter to start on a busy machine.
    stack = await Stack.start({ layout: 'inprocess' });
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-prometheus-'));
    const port = await freePort();
    const target = new URL(stack.baseUrl).host;
    fs.writeFileSync(
      path.join(workDir, 'prometheus.yml'),
      `global: {scrape_interval: 1s, evaluation_interval: 1s}\nscrape_configs:\n  - job_name: svc-api\n    static_configs: [{targets: ['${target}']}]\n`,
    );
    prometheus = spawn(
      PROMETHEUS,
      [`--config.file=${path.join(workDir, 'prometheus.yml')}`, `--storage.tsdb.path=${path.join(workDir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prometheus.stdout?.on('data', (c: Buffer) => prometheusOutput.push(c.toString()));
    prometheus.stderr?.on('data', (c: Buffer) => prometheusOutput.push(c.toString()));
    connection = { name: 'connections/metrics', type: 'CONNECTION_TYPE_PROMETHEUS', details: { url: `http://127.0.0.1:${port}`, token: 'prom-token-secret' } };
    await eventually(async () => {
      if (prometheus?.exitCode !== null) throw new Error(`prometheus exited (${prometheus?.exitCode}):\n${prometheusOutput.join('')}`);
      return (await fetch(`http://127.0.0.1:${port}/-/ready`).catch(() => undefined))?.status === 200 ? true : undefined;
    }, 30_000);
    // Requests for the api to count while Prometheus watches.
    traffic = setInterval(() => void stack.rpc(`${NOTES}/ListNotes`, {}).catch(() => undefined), 100);
    // The api is scraped (`up` is 1) before any test asks about it.
    await eventually(async () => {
      const up = await adapter.run('TOOL_PROMQL_QUERY', { query: 'up{job="svc-api"}' }, connection, context()).catch(() => undefined);
      return (up?.result as VectorSample[] | undefined)?.[0]?.value[1] === '1' ? true : undefined;
    }, 30_000);
  }, 90_000);

  afterAll(async () => {
    if (traffic) clearInterval(traffic);
    await adapter.close();
    if (prometheus) await stopProcess(prometheus);
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
    await stack?.destroy();
  });

  it("answers the api's own request rate, from its own /metrics", async () => {
    const query = `sum by (method) (rate(${REQUESTS}{job="svc-api",method="${NOTES}/ListNotes"}[10s]))`;
    const answer = await eventually(async () => {
      const result = await adapter.run('TOOL_PROMQL_QUERY', { query, time: 'now' }, connection, context());
      const rate = Number((result.result as VectorSample[])[0]?.value[1]);
      return rate > 0 ? result : undefined;
    }, 20_000);
    expect(answer).toMatchObject({ resultType: 'vector', seriesTotal: 1, result: [{ metric: { method: `${NOTES}/ListNotes` }, value: [expect.any(Number), expect.any(String)] }] });
    expect(answer).not.toHaveProperty('truncated');
    // Ten requests a second are sent; scrapes every second see a rate of that order.
    expect(Number((answer.result as VectorSample[])[0].value[1])).toBeGreaterThan(1);
  });

  it('answers a range of the rate, with the step raised so no series passes maxPoints', async () => {
    const query = `sum(rate(${REQUESTS}{job="svc-api"}[10s]))`;
    const result = await adapter.run('TOOL_PROMQL_QUERY_RANGE', { query, start: 'now-20s', end: 'now', step: '1s' }, connection, context({ maxPoints: 5 }));
    expect(result).toMatchObject({ resultType: 'matrix', step: 5, stepRequested: 1, stepNote: expect.stringContaining('at most 5 points') });
    const series = result.result as Array<{ values: Array<[number, string]> }>;
    expect(series).toHaveLength(1);
    expect(series[0].values.length).toBeGreaterThan(0);
    expect(series[0].values.length).toBeLessThanOrEqual(5);
  });

  it('lists metric names, the request counter among them, filtered by a selector or a search', async () => {
    const all = await adapter.run('TOOL_PROMQL_LIST_METRICS', {}, connection, context());
    expect(all.metrics).toEqual(expect.arrayContaining([REQUESTS, 'up']));
    const searched = await adapter.run('TOOL_PROMQL_LIST_METRICS', { match: '{job="svc-api"}', search: 'SVC_HTTP' }, connection, context());
    expect(searched.metrics).toEqual(expect.arrayContaining([REQUESTS]));
    expect((searched.metrics as string[]).every((m) => m.startsWith('svc_http'))).toBe(true);
    const cut = await adapter.run('TOOL_PROMQL_LIST_METRICS', {}, connection, context({ maxRows: 3 }));
    expect(cut).toMatchObject({ metrics: expect.any(Array), truncated: true });
    expect(cut.metrics).toHaveLength(3);
    expect(cut.total).toBe((all.metrics as string[]).length);
  });

  it('cuts an answer with more series than maxSeries and says so', async () => {
    const result = await adapter.run('TOOL_PROMQL_QUERY', { query: '{job="svc-api"}' }, connection, context({ maxSeries: 5 }));
    expect(result.result).toHaveLength(5);
    expect(result).toMatchObject({ truncated: true, truncation: expect.stringMatching(/^kept 5 of \d+ series \(maxSeries\)/) });
    expect(result.seriesTotal).toBeGreaterThan(5);
  });

  it("turns Prometheus's bad_data into INVALID_ARGUMENT with its own explanation", async () => {
    const error = await failure(adapter.run('TOOL_PROMQL_QUERY', { query: 'sum(rate(' }, connection, context()));
    expect([error.code, error.message]).toEqual(['INVALID_ARGUMENT', expect.stringMatching(/^Prometheus: bad_data: .*parse error/)]);
    const range = await failure(adapter.run('TOOL_PROMQL_QUERY_RANGE', { query: 'up', start: 'now', end: 'now-1h', step: '1m' }, connection, context()));
    expect([range.code, range.message]).toEqual(['INVALID_ARGUMENT', "'end' is before 'start'"]);
  });

  describe('when Prometheus cannot answer', () => {
    let silent: Server;
    let silentPort = 0;
    beforeAll(async () => {
      silent = createServer(() => undefined); // accepts and never answers
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      silentPort = (silent.address() as AddressInfo).port;
    });
    afterAll(async () => {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    });

    it('cuts a call past the time limit as DEADLINE_EXCEEDED, and a refused connection as UNAVAILABLE, naming the connection only', async () => {
      const stalled = { ...connection, details: { url: `http://user:pw-secret@127.0.0.1:${silentPort}/prom` } };
      const started = Date.now();
      const late = await failure(adapter.run('TOOL_PROMQL_QUERY', { query: 'up' }, stalled, context({ timeoutMs: 300 })));
      expect([late.code, late.message]).toEqual(['DEADLINE_EXCEEDED', 'connections/metrics: Prometheus did not answer within 300 ms']);
      expect(Date.now() - started).toBeLessThan(3_000);

      const closed = await freePort(); // nothing listens there
      const refused = await failure(adapter.run('TOOL_PROMQL_QUERY', { query: 'up' }, { ...connection, details: { url: `http://127.0.0.1:${closed}` } }, context()));
      expect([refused.code, refused.message]).toEqual(['UNAVAILABLE', `connections/metrics: Prometheus at http://127.0.0.1:${closed} cannot be reached (ECONNREFUSED)`]);
      expect(late.message + refused.message).not.toMatch(/secret/);
    });
  });
});
