/**
 * Wrong-password flood (issue 16, section 3): concurrent loops sending random secrets for one API
 * key username while another tenant signs in for the first time (each sign-in a key never verified
 * before: a full slow hash) and an unrelated tenant's request runs, both measured before and during
 * the flood. Loopback only: the flood comes from 127.0.0.2 and the measured clients from 127.0.0.1,
 * since failed attempts are also limited per address (a client behind the flooding address would
 * be refused with it).
 */
import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Credentials } from './stack';
import { Samples, summarize, type Summary } from './stats';

export interface FloodResult {
  loops: number;
  seconds: number;
  /** The flood's answers by status. */
  floodStatuses: Record<string, number>;
  baseline: { firstLogin: Summary; unrelated: Summary; failures: number };
  during: { firstLogin: Summary; unrelated: Summary; firstLoginFailures: number; unrelatedFailures: number };
}

const auth = (as: Credentials) => `Basic ${Buffer.from(`${as.username}:${as.password}`).toString('base64')}`;

/** One request on `agent` from `localAddress`; resolves with the status once the answer is read. */
function send(baseUrl: string, agent: http.Agent, localAddress: string, options: { method: string; path: string; as: Credentials; body?: string }): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: auth(options.as) };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const req = http.request(`${baseUrl}${options.path}`, { method: options.method, agent, localAddress, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Runs `request` one at a time until `until()`, recording each latency; counts answers other than 200. */
async function sequential(request: () => Promise<number>, until: () => boolean): Promise<{ latency: Samples; failures: number }> {
  const latency = new Samples();
  let failures = 0;
  while (!until()) {
    const started = performance.now();
    const status = await request();
    latency.push(performance.now() - started);
    if (status !== 200) failures++;
  }
  return { latency, failures };
}

export async function measureFlood(
  baseUrl: string,
  options: { flooded: string; logins: Credentials[]; unrelated: Credentials; loops: number; seconds: number },
): Promise<FloodResult> {
  const measured = new http.Agent({ keepAlive: true, maxSockets: 4 });
  // A new connection per sign-in, as a client starting up makes.
  const fresh = new http.Agent({ keepAlive: false });
  const floodAgent = new http.Agent({ keepAlive: true, maxSockets: options.loops });
  const logins = [...options.logins];
  const firstLogin = (): Promise<number> => send(baseUrl, fresh, '127.0.0.1', { method: 'GET', path: '/v1/auth', as: logins.shift()! });
  const unrelated = (): Promise<number> =>
    send(baseUrl, measured, '127.0.0.1', { method: 'POST', path: '/svc.notes.v1.NotesService/ListNotes', as: options.unrelated, body: '{"page_size":10}' });
  // Warm the unrelated client's pair (verified once, then served from the cache).
  await unrelated();

  // Baseline: a third of the sign-ins and as long a run of the unrelated request, with no flood.
  const baselineLogins = Math.floor(logins.length / 3);
  const base = await sequential(firstLogin, () => logins.length <= options.logins.length - baselineLogins);
  const baseEnd = performance.now() + options.seconds * 1000;
  const baseUnrelated = await sequential(unrelated, () => performance.now() > baseEnd);

  const statuses = new Map<number, number>();
  let stop = false;
  const loops = Array.from({ length: options.loops }, async () => {
    while (!stop) {
      const status = await send(baseUrl, floodAgent, '127.0.0.2', { method: 'GET', path: '/v1/auth', as: { username: options.flooded, password: randomUUID() } }).catch(() => 0);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  });
  const floodStarted = performance.now();
  const floodEnd = floodStarted + options.seconds * 1000;
  // Let the flood build up its queue before measuring.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const [duringLogins, duringUnrelated] = await Promise.all([
    sequential(firstLogin, () => logins.length === 0 || performance.now() > floodEnd),
    sequential(unrelated, () => performance.now() > floodEnd),
  ]);
  stop = true;
  await Promise.all(loops);
  const seconds = (performance.now() - floodStarted) / 1000;
  for (const agent of [measured, fresh, floodAgent]) agent.destroy();
  return {
    loops: options.loops,
    seconds,
    floodStatuses: Object.fromEntries([...statuses].map(([status, n]) => [status === 0 ? 'transport' : String(status), n])),
    baseline: { firstLogin: summarize(base.latency), unrelated: summarize(baseUnrelated.latency), failures: base.failures + baseUnrelated.failures },
    during: {
      firstLogin: summarize(duringLogins.latency),
      unrelated: summarize(duringUnrelated.latency),
      firstLoginFailures: duringLogins.failures,
      unrelatedFailures: duringUnrelated.failures,
    },
  };
}
