import { randomUUID } from 'node:crypto';
import { type IncomingHttpHeaders, request } from 'node:http';
import * as net from 'node:net';
import { ALICE, BOB, type Credentials, eventually, GINA, REQUEST_INFO, sleep, Stack } from './support/harness';
import { SseClient } from './support/sse';
import { repeated, upload } from './support/uploads';

/**
 * Issue 16, section 3: a flood of wrong API key secrets must not slow or starve another tenant, nor
 * tell which key usernames exist; half-open connections must not be held. Each client below connects
 * from its own loopback address (Linux routes all of 127/8 to lo), since failed attempts are also
 * limited per address.
 */
interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
}

/** `GET /v1/auth` as `as`, on a new connection from `from`. */
function getAuth(stack: Stack, as: Credentials, from: string): Promise<Answer> {
  const authorization = `Basic ${Buffer.from(`${as.username}:${as.password}`).toString('base64')}`;
  return new Promise((resolve, reject) => {
    const req = request(`${stack.baseUrl}/v1/auth`, { headers: { authorization }, localAddress: from, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString()) as Record<string, unknown>, headers: res.headers }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The answer without what differs between any two requests (the request id). */
const shape = (a: Answer) => ({
  status: a.status,
  body: JSON.parse(JSON.stringify(a.body).replace(/"requestId":"[^"]*"/g, '"requestId":"-"')) as unknown,
  challenge: a.headers['www-authenticate'],
  retryAfter: a.headers['retry-after'],
});

async function verifications(stack: Stack): Promise<Record<string, number>> {
  const text = await (await fetch(`${stack.baseUrl}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const m of text.matchAll(/^svc_auth_verifications_total\{outcome="(\w+)"\} (\d+)$/gm)) counts[m[1]] = Number(m[2]);
  return counts;
}

const LIMIT_ANSWER = {
  error: {
    code: 429,
    status: 'RESOURCE_EXHAUSTED',
    // Too many failures, or a check of the same key (or address) already running.
    message: expect.stringMatching(/sign-in attempts? .*; retry after \d+ s$/),
    details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'RATE_LIMIT_EXCEEDED', domain: 'svc', metadata: expect.objectContaining({ retryAfterSeconds: expect.any(String) }) }, REQUEST_INFO],
  },
};

describe('failed API key sign-ins are bounded (api and projector as separate processes)', () => {
  const PER_KEY = 5;
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ env: { SVC_AUTH_FAILURES_PER_KEY_PER_MINUTE: String(PER_KEY), SVC_AUTH_FAILURES_PER_ADDRESS_PER_MINUTE: '20' } });
  });
  afterAll(() => stack?.destroy());

  it("answers a flood of wrong secrets for one key 429 with Retry-After past the limit, while another tenant's first sign-in and the key's verified pair are served", async () => {
    // Alice signed in before the flood: her verified pair is served from the cache, never limited.
    expect((await getAuth(stack, ALICE, '127.0.0.1')).status).toBe(200);
    const flood: Answer[] = [];
    const started = Date.now();
    let stop = false;
    const loops = Array.from({ length: 16 }, async () => {
      while (!stop) flood.push(await getAuth(stack, { username: ALICE.username, password: randomUUID() }, '127.0.0.2'));
    });
    await eventually(async () => (flood.some((a) => a.status === 429) ? true : undefined));
    // The flood is running: Globex's first sign-in (no pair of Gina verified yet) and Alice's cached pair.
    const [gina, alice] = await Promise.all([getAuth(stack, GINA, '127.0.0.1'), getAuth(stack, ALICE, '127.0.0.1')]);
    // The flood goes on until the key has no failed attempt left: refused before any hash.
    const spent = (a: Answer) => a.status === 429 && /^too many failed sign-in attempts for this API key/.test(String((a.body.error as { message?: unknown }).message));
    await eventually(async () => (flood.some(spent) ? true : undefined), 45_000);
    stop = true;
    await Promise.all(loops);
    const refilled = Math.ceil((((Date.now() - started) / 60_000) * PER_KEY));

    expect([gina.status, gina.body.organization ?? gina.body]).toEqual([200, expect.anything()]);
    expect(alice.status).toBe(200);
    const statuses = new Set(flood.map((a) => a.status));
    expect([...statuses].sort()).toEqual([401, 429]);
    // The limit's attempts (and those refilled meanwhile, at PER_KEY a minute) were checked; the rest refused before any hash.
    expect(flood.filter((a) => a.status === 401).length).toBeLessThanOrEqual(PER_KEY + refilled);
    for (const limited of flood.filter((a) => a.status === 429)) {
      expect(limited.body).toEqual(LIMIT_ANSWER);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
  });

  it('answers an unknown key username exactly as a wrong secret of a known one, at the same cost (a slow hash), and past the limit', async () => {
    const before = await verifications(stack);
    // All at once: one check of a username runs at a time, the others are refused while it does.
    const attempts = (username: string, from: string) =>
      Promise.all(Array.from({ length: PER_KEY }, (_, i) => getAuth(stack, { username, password: `guess-${i}` }, from)));
    const byStatus = (answers: Answer[]) => [...answers].sort((a, b) => a.status - b.status);
    const unknown = byStatus(await attempts('ghost-key', '127.0.0.3'));
    const wrong = byStatus(await attempts(BOB.username, '127.0.0.4'));
    expect(unknown.map(shape)).toEqual(wrong.map(shape));
    expect(unknown.map((a) => a.status)).toEqual([401, ...Array(PER_KEY - 1).fill(429)]);
    expect(unknown[0].body).toEqual({ error: { code: 401, status: 'UNAUTHENTICATED', message: expect.any(String), details: [REQUEST_INFO] } });
    expect(unknown[1].body).toEqual(LIMIT_ANSWER);
    expect(unknown[1].body).toMatchObject({ error: { message: expect.stringMatching(/^another sign-in attempt for this API key is being checked/) } });
    const after = await verifications(stack);
    // Both ran one slow hash (the unknown one against a hash no secret matches).
    expect((after.refused ?? 0) - (before.refused ?? 0)).toBe(2);
    expect((after.limited ?? 0) - (before.limited ?? 0)).toBe(2 * (PER_KEY - 1));
  });

  it('answers a repeated wrong pair from memory: one slow hash, and no attempt spent after the first', async () => {
    const before = await verifications(stack);
    const pair = { username: 'dave-key', password: 'stale-secret' };
    const answers: Answer[] = [];
    for (let i = 0; i < 3 * PER_KEY; i++) answers.push(await getAuth(stack, pair, '127.0.0.5'));
    expect(answers.map((a) => a.status)).toEqual(Array(3 * PER_KEY).fill(401));
    const after = await verifications(stack);
    expect((after.refused ?? 0) - (before.refused ?? 0)).toBe(1);
    expect((after.refused_cached ?? 0) - (before.refused_cached ?? 0)).toBe(3 * PER_KEY - 1);
  });

  it('answers 503 UNAVAILABLE with Retry-After past the queue of slow hashes, however the attempts are spread', async () => {
    // 40 distinct unknown usernames, two from each of 20 addresses: no limit is reached, the gate (2 + 16 waiting) is.
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => getAuth(stack, { username: `spread-${i}`, password: 'x' }, `127.0.1.${(i % 20) + 1}`)),
    );
    const busy = answers.filter((a) => a.status === 503);
    expect(answers.filter((a) => a.status === 401).length).toBeGreaterThanOrEqual(18);
    expect(busy.length).toBeGreaterThan(0);
    expect(busy[0].body).toEqual({
      error: {
        code: 503,
        status: 'UNAVAILABLE',
        message: expect.stringMatching(/too many API key verifications are waiting/),
        details: [expect.objectContaining({ reason: 'AUTH_VERIFICATIONS_BUSY' }), REQUEST_INFO],
      },
    });
    expect(busy[0].headers['retry-after']).toBe('1');
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([401, 503]));
  });
});

describe('the HTTP server does not hold half-open connections', () => {
  const HEADERS_TIMEOUT_MS = 1000;
  const IDLE_TIMEOUT_MS = 2000;
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({
      env: { SVC_HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS), SVC_HTTP_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS), SVC_NOTIFY_HEARTBEAT_MS: '500' },
    });
  });
  afterAll(() => stack?.destroy());

  /**
   * Opens a raw connection and sends `text`; resolves with what came back and whether the server
   * closed it. After 20 s the test lets go itself (Node's defaults hold a partial head 60 to 90 s).
   */
  function hold(text: string): Promise<{ closedByServer: boolean; received: string }> {
    const { port } = new URL(stack.baseUrl);
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(text));
    let received = '';
    let gaveUp = false;
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.on('error', () => undefined); // a reset is a close too
    const timer = setTimeout(() => {
      gaveUp = true;
      socket.destroy();
    }, 20_000);
    return new Promise((resolve) =>
      socket.on('close', () => {
        clearTimeout(timer);
        resolve({ closedByServer: !gaveUp, received });
      }),
    );
  }

  it('closes a connection whose request head stops half way, answering DEADLINE_EXCEEDED', async () => {
    const held = await hold('GET /v1/auth HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic ');
    expect(held.closedByServer).toBe(true);
    expect(held.received).toMatch(/^HTTP\/1\.1 504 [^\r]*\r\n[\s\S]*"status":"DEADLINE_EXCEEDED"/);
  });

  it('closes a connection that sends nothing', async () => {
    expect((await hold('')).closedByServer).toBe(true);
  });

  it('closes a connection whose request body stops, after the idle timeout', async () => {
    const head = `PUT /v1/artifacts/${'0'.repeat(64)} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: 1000\r\n`;
    const auth = `Authorization: Basic ${Buffer.from(`${ALICE.username}:${ALICE.password}`).toString('base64')}\r\n\r\n`;
    expect((await hold(`${head}${auth}only a few bytes`)).closedByServer).toBe(true);
  });

  it('keeps an upload that is still sending, past both timeouts', async () => {
    const piece = Buffer.alloc(16 * 1024, 7);
    const content = repeated(piece, 16 * piece.length);
    async function* slowly() {
      for await (const chunk of content.chunks()) {
        await sleep(250); // 4 s in all: beyond the headers and the idle timeouts, never idle as long as one
        yield chunk;
      }
    }
    const res = await upload(stack.baseUrl, content.sha256, slowly(), { as: ALICE, contentLength: 16 * piece.length });
    expect(res.status).toBe(200);
  });

  it('keeps a notification stream open past the idle timeout (its heartbeat is traffic)', async () => {
    const client = await SseClient.open(stack.baseUrl);
    await sleep(2 * IDLE_TIMEOUT_MS);
    expect(client.ended).toBe(false);
    expect(client.comments.filter((c) => c === 'heartbeat').length).toBeGreaterThan(2);
    await client.close();
  });
});
