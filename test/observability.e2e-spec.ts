import { execFile, spawnSync } from 'node:child_process';
import { ALICE, CLI_MAIN, eventually, freePort, GINA, sleep, Stack, stopProcess } from './support/harness';
import { SseClient } from './support/sse';

const NOTES = 'svc.notes.v1.NotesService';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface EventView {
  stream: string;
  type: string;
  correlationId: string;
}

function cli(stack: Stack, ...args: string[]): Promise<string> {
  const env = { ...process.env, SVC_DATA_DIR: stack.dataDir, EVENTSTORE_URL: '', MONGODB_URL: '' };
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CLI_MAIN, ...args], { env }, (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)));
  });
}

/**
 * Whether promtool is on this machine (Debian: `apt-get install prometheus`). Without it the check is
 * skipped with a message, unless SVC_REQUIRE_SERVERS=1 (as .ci/run sets) makes its absence a failure.
 */
function promtool(): boolean {
  const found = spawnSync('promtool', ['--version']).status === 0;
  if (!found && process.env.SVC_REQUIRE_SERVERS === '1') throw new Error('promtool is required (SVC_REQUIRE_SERVERS=1): apt-get install prometheus');
  if (!found) console.warn('promtool not found: `promtool check metrics` skipped (apt-get install prometheus)');
  return found;
}

/** promtool's complaints about a metrics text (empty when it passes). */
function promtoolCheck(text: string): Promise<string> {
  return new Promise((resolve) => {
    const child = execFile('promtool', ['check', 'metrics'], (error, stdout, stderr) => resolve(error ? `${stdout}${stderr}` || String(error) : `${stdout}${stderr}`.trim()));
    child.stdin?.end(text);
  });
}

/** The value of one sample of the Prometheus text, or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('request ids, access logs, metrics and health', () => {
  let stack: Stack;
  let projectorPort: number;

  beforeAll(async () => {
    projectorPort = await freePort();
    stack = await Stack.start({ env: { PROJECTOR_PORT: String(projectorPort) } });
  }, 60_000);
  afterAll(() => stack?.destroy());

  it('a request id goes from the header to the response, the access log line and the metadata of the events it appended', async () => {
    const requestId = 'obs-trace-4f2a:9';
    const res = await stack.request('POST', `/${NOTES}/CreateNote`, {
      body: { note_id: 'traced', note: { display_name: 'Traced' } },
      headers: { 'x-request-id': requestId },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe(requestId);

    const line = await eventually(async () => stack.logLines('api').find((l) => l.requestId === requestId && l.msg === 'request'));
    expect(line).toMatchObject({ org: 'acme', method: `${NOTES}/CreateNote`, status: 200, http: `POST /${NOTES}/CreateNote` });
    expect(typeof line.ms).toBe('number');

    const { events } = JSON.parse(await cli(stack, 'events', '--type', 'NoteCreated', '--org', 'acme', '--json')) as { events: EventView[] };
    const created = events.find((e) => e.stream.endsWith('notes/traced'));
    expect(created?.correlationId).toBe(requestId);
  });

  it('an error body carries the request id as a google.rpc.RequestInfo detail, and its log line the status', async () => {
    const requestId = 'missing-note-lookup';
    const res = await stack.request('POST', `/${NOTES}/GetNote`, { body: { name: 'notes/nowhere' }, headers: { 'x-request-id': requestId } });
    expect(res.status).toBe(404);
    expect(res.headers.get('x-request-id')).toBe(requestId);
    expect((res.body as { error: { details: unknown[] } }).error.details).toContainEqual({
      '@type': 'type.googleapis.com/google.rpc.RequestInfo',
      requestId,
    });
    const line = await eventually(async () => stack.logLines('api').find((l) => l.requestId === requestId && l.msg === 'request'));
    expect(line).toMatchObject({ status: 404, method: `${NOTES}/GetNote`, error: 'NOT_FOUND', message: "note 'notes/nowhere' not found" });

    // An error answered before any credential is checked has one too.
    const anonymous = await stack.rpc(`${NOTES}/ListNotes`, {}, null);
    expect(anonymous.status).toBe(401);
    const info = (anonymous.body as { error: { details: Array<{ requestId?: string }> } }).error.details.find((d) => d.requestId);
    expect(info?.requestId).toBe(anonymous.headers.get('x-request-id'));
    const unauthenticated = await eventually(async () => stack.logLines('api').find((l) => l.requestId === info?.requestId && l.msg === 'request'));
    expect(unauthenticated).toMatchObject({ status: 401, error: 'UNAUTHENTICATED' });
    // A successful answer's line names no error.
    expect(stack.logLines('api').find((l) => l.msg === 'request' && l.status === 200)).not.toHaveProperty('error');
  });

  it('generates a UUID when the header is absent, too long or holds unsafe characters', async () => {
    const absent = await stack.rpc(`${NOTES}/ListNotes`, {});
    expect(absent.headers.get('x-request-id')).toMatch(UUID);
    for (const insane of ['x'.repeat(129), 'two words', 'quote"d', 'new\tline']) {
      const res = await stack.request('POST', `/${NOTES}/ListNotes`, { body: {}, headers: { 'x-request-id': insane } });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-request-id')).toMatch(UUID);
    }
    const accepted = 'y'.repeat(128);
    expect((await stack.request('POST', `/${NOTES}/ListNotes`, { body: {}, headers: { 'x-request-id': accepted } })).headers.get('x-request-id')).toBe(accepted);
  });

  it('logs are JSON lines with no credential in them', async () => {
    const last = (await stack.rpc(`${NOTES}/ListNotes`, {})).headers.get('x-request-id');
    // Lines are buffered for at most a fraction of a second: wait for this request's own line.
    await eventually(async () => stack.logLines('api').find((l) => l.requestId === last));
    const basic = Buffer.from(`${ALICE.username}:${ALICE.password}`).toString('base64');
    const output = stack.output.join('');
    expect(output).not.toContain(ALICE.password);
    expect(output).not.toContain(basic);
    expect(stack.logLines('api').filter((l) => l.msg === 'request').length).toBeGreaterThan(3);
  });

  it('GET /metrics counts requests per method and status, read-your-writes waits, and names no organization', async () => {
    const first = await fetch(`${stack.baseUrl}/metrics`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = async () => (await fetch(`${stack.baseUrl}/metrics`)).text();
    const series = `svc_http_request_duration_seconds_count{method="${NOTES}/CreateNote",status="200"}`;
    const created = sample(await text(), series) ?? 0;
    for (const id of ['m1', 'm2', 'm3']) expect((await stack.rpc(`${NOTES}/CreateNote`, { note_id: id, note: { display_name: id } })).status).toBe(200);
    expect((await stack.rpc(`${NOTES}/CreateNote`, { note_id: 'm1', note: { display_name: 'again' } })).status).toBe(409);

    const after = await eventually(async () => {
      const t = await text();
      return sample(t, series) === created + 3 ? t : undefined;
    });
    expect(sample(after, `svc_http_request_duration_seconds_count{method="${NOTES}/CreateNote",status="409"}`)).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'svc_read_wait_seconds_count{outcome="reached"}')).toBeGreaterThanOrEqual(3);
    expect(after).toMatch(/^svc_append_conflicts_total \d+$/m);
    expect(after).toMatch(/^svc_sse_subscribers 0$/m);
    expect(after).toContain('# TYPE svc_http_request_duration_seconds histogram');
    // Labels are methods and statuses, never an organization or a resource name.
    expect(after).not.toMatch(/acme|globex|notes\/m1/);
  });

  it('counts open notification streams while they are open', async () => {
    const metrics = async () => (await fetch(`${stack.baseUrl}/metrics`)).text();
    const client = await SseClient.open(stack.baseUrl);
    try {
      await eventually(async () => (sample(await metrics(), 'svc_sse_subscribers') === 1 ? true : undefined));
      // Its access line comes when it ends; a line says when it opened.
      const opened = await eventually(async () => stack.logLines('api').find((l) => l.msg === 'stream opened'));
      expect(opened).toMatchObject({ org: 'acme', method: 'svc.notifications.v1.NotificationService/Subscribe', status: 200, requestId: expect.any(String) });
      expect(stack.logLines('api').some((l) => l.msg === 'request' && l.requestId === opened.requestId)).toBe(false);
    } finally {
      await client.close();
    }
    await eventually(async () => (sample(await metrics(), 'svc_sse_subscribers') === 0 ? true : undefined));
  });

  it("the projector's health port serves each projection's checkpoint, lag and parked count", async () => {
    expect((await stack.rpc(`${NOTES}/CreateNote`, { note_id: 'lagless', note: { display_name: 'x' } })).status).toBe(200);
    const text = await eventually(async () => {
      const t = await (await fetch(`http://127.0.0.1:${projectorPort}/metrics`)).text();
      return sample(t, 'svc_projection_lag_events{projection="notes"}') === 0 ? t : undefined;
    });
    expect(sample(text, 'svc_projection_checkpoint{projection="notes"}')).toBeGreaterThan(0);
    expect(sample(text, 'svc_projection_lag_seconds{projection="notes"}')).toBe(0);
    expect(sample(text, 'svc_projection_parked_events{projection="notes"}')).toBe(0);
    expect(text).toMatch(/^svc_reactor_lag_events\{reactor="[a-z-]+"\} \d+$/m);
    expect((await fetch(`http://127.0.0.1:${projectorPort}/livez`)).status).toBe(200);
    // The api's series are the api's: the projector does not export them as zeros.
    for (const series of ['svc_http_request_duration_seconds', 'svc_read_wait_seconds', 'svc_sse_subscribers', 'svc_rate_limited_total', 'svc_auth_verifications_total']) {
      expect([series, text.includes(`# TYPE ${series} `)]).toEqual([series, false]);
    }
    expect(text).toContain('# TYPE svc_append_conflicts_total counter');
  });

  it("the api's /metrics carries every projection's lag and parked events too, read from the stores", async () => {
    const text = await eventually(async () => {
      const t = await (await fetch(`${stack.baseUrl}/metrics`)).text();
      return sample(t, 'svc_projection_lag_events{projection="notes"}') === 0 ? t : undefined;
    });
    expect(sample(text, 'svc_projection_lag_seconds{projection="notes"}')).toBe(0);
    expect(sample(text, 'svc_projection_parked_events{projection="notes"}')).toBe(0);
    expect(text).toMatch(/^svc_reactor_lag_events\{reactor="[a-z-]+"\} \d+$/m);
  });

  it('both /metrics pass `promtool check metrics`', async () => {
    if (!promtool()) return;
    for (const url of [`${stack.baseUrl}/metrics`, `http://127.0.0.1:${projectorPort}/metrics`]) {
      const text = await (await fetch(url)).text();
      expect([url, await promtoolCheck(text)]).toEqual([url, '']);
    }
  });

  it("the projector writes JSON lines through pino too, named as the projector's", async () => {
    const running = await eventually(async () => stack.logLines('projector').find((l) => typeof l.msg === 'string' && l.msg.startsWith('running ')));
    expect(running).toMatchObject({ level: 30, name: 'projector', context: 'projector', pid: expect.any(Number), time: expect.any(Number) });
    const complete = stack.stdout('projector').split('\n').slice(0, -1);
    expect(complete.length).toBeGreaterThan(0);
    for (const line of complete) expect(() => JSON.parse(line) as unknown).not.toThrow();
  });

  it('/livez and /readyz answer without credentials; a stopped projector makes readiness degraded, not down', async () => {
    const live = await stack.request('GET', '/livez', { as: null });
    expect(live).toMatchObject({ status: 200, body: { status: 'ok' } });
    const ready = await stack.request('GET', '/readyz', { as: null });
    expect(ready).toMatchObject({
      status: 200,
      body: { status: 'ok', eventStore: 'reachable', readStore: 'reachable', configuration: 'applied', projector: 'running' },
    });

    await stopProcess(stack.processes[0]); // the projector (started first)
    const degraded = await eventually(async () => {
      const res = await stack.request('GET', '/readyz', { as: null });
      return (res.body as { status?: string }).status === 'degraded' ? res : undefined;
    }, 15_000);
    expect(degraded).toMatchObject({ status: 200, body: { projector: 'not running', configuration: 'applied' } });
    // /healthz keeps its documented meaning: not ready without a running projector, which is down, not "starting".
    expect(await stack.request('GET', '/healthz', { as: null })).toMatchObject({ status: 503, body: { status: 'unavailable', projector: 'not running' } });
  }, 30_000);
});

describe('per-organization rate limits', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ env: { SVC_RATE_LIMIT_PER_SECOND: '1', SVC_RATE_LIMIT_BURST: '3' } });
  }, 60_000);
  afterAll(() => stack?.destroy());

  it('answers RESOURCE_EXHAUSTED with Retry-After past the burst, per organization, and serves again after the wait', async () => {
    const list = (as = ALICE) => stack.rpc(`${NOTES}/ListNotes`, {}, as);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await list());
    expect(answers.slice(0, 3).map((r) => r.status)).toEqual([200, 200, 200]);
    const limited = answers[3];
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({
      error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: expect.stringMatching(/rate limit/) },
    });
    expect((limited.body as { error: { details: unknown[] } }).error.details).toContainEqual(
      expect.objectContaining({ reason: 'RATE_LIMIT_EXCEEDED' }),
    );
    // Its access line says which error and why.
    const line = await eventually(async () => stack.logLines('api').find((l) => l.requestId === limited.headers.get('x-request-id') && l.msg === 'request'));
    expect(line).toMatchObject({ status: 429, error: 'RESOURCE_EXHAUSTED', reason: 'RATE_LIMIT_EXCEEDED', message: expect.stringMatching(/rate limit/) });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);

    // Another organization has its own bucket; health and metrics are never limited.
    expect((await list(GINA)).status).toBe(200);
    expect((await stack.request('GET', '/healthz', { as: null })).status).toBe(200);

    await sleep(retryAfter * 1000);
    expect((await list()).status).toBe(200);
    const metrics = await (await fetch(`${stack.baseUrl}/metrics`)).text();
    expect(sample(metrics, 'svc_rate_limited_total')).toBeGreaterThanOrEqual(1);
  }, 30_000);
});
