/**
 * Closed-loop HTTP load generator: N clients, each with its own keep-alive connection, each sending
 * its next request as soon as the previous answer arrives. `node:http` with a keep-alive Agent is
 * used rather than fetch/undici because it costs less CPU per request, and the generator shares the
 * machine with the api and the projector.
 */
import * as http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { CpuMeter, CpuShare } from './cpu';
import type { Credentials } from './stack';
import { Samples, type Summary, summarize } from './stats';

export interface HttpResult {
  status: number;
  body: string;
}

/** A JSON-over-HTTP client bound to one base URL and one credential, over a keep-alive pool. */
export class Client {
  private readonly agent: http.Agent;
  private readonly host: string;
  private readonly port: number;
  private readonly authorization: string;
  private closed = false;

  constructor(baseUrl: string, credentials: Credentials, maxSockets: number) {
    const url = new URL(baseUrl);
    this.host = url.hostname;
    this.port = Number(url.port);
    this.authorization = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
    this.agent = new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, scheduling: 'lifo' });
  }

  /** POST a JSON body; resolves with the status and the raw response text. */
  post(path: string, body: string): Promise<HttpResult> {
    if (this.closed) return Promise.reject(new Error('client closed'));
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: this.host,
          port: this.port,
          method: 'POST',
          path,
          agent: this.agent,
          headers: {
            authorization: this.authorization,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  async json<T>(path: string, body: unknown): Promise<{ status: number; body: T }> {
    const res = await this.post(path, JSON.stringify(body));
    return { status: res.status, body: (res.body ? JSON.parse(res.body) : {}) as T };
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Drops every connection; loops driving this client stop at their next request. */
  close(): void {
    this.closed = true;
    this.agent.destroy();
  }
}

export interface LoadOptions {
  clients: number;
  warmupMs: number;
  durationMs: number;
  path: string;
  /** Body of the `seq`-th request of client `client` (seq counts from 0 per client, warm-up included). */
  body: (client: number, seq: number) => string;
  /** Called for each 200 response inside the measured window (collect created names, say). */
  onOk?: (client: number, seq: number, body: string) => void;
  /** Measures where the machine's CPU went during the measured window. */
  meter?: CpuMeter;
}

export interface LoadResult {
  requests: number;
  ok: number;
  errors: number;
  /** Non-200 responses and transport errors, by status (0 = transport error). */
  errorsByStatus: Map<number, number>;
  /** A few error bodies, for the report. */
  errorSamples: string[];
  seconds: number;
  rate: number;
  latency: Summary;
  cpu: CpuShare | null;
  /** 200 responses completed in each 250 ms slice of the window: dips show stalls, not just slowness. */
  perSlice: number[];
}

const SLICE_MS = 250;

/**
 * Runs `clients` closed loops for warm-up plus duration. Only requests that both start and finish
 * inside the measured window are counted, so the window's rate and latencies are not skewed by the
 * warm-up or by the drain at the end.
 */
export async function runLoad(client: Client, options: LoadOptions): Promise<LoadResult> {
  const latencies = new Samples();
  const errorsByStatus = new Map<number, number>();
  const errorSamples: string[] = [];
  let ok = 0;
  let errors = 0;
  const perSlice = new Array<number>(Math.max(1, Math.ceil(options.durationMs / SLICE_MS))).fill(0);
  let windowStart = Number.POSITIVE_INFINITY;
  let windowEnd = Number.POSITIVE_INFINITY;
  let stopped = false;

  const recordError = (status: number, text: string): void => {
    errors++;
    errorsByStatus.set(status, (errorsByStatus.get(status) ?? 0) + 1);
    if (errorSamples.length < 5) errorSamples.push(`${status}: ${text.slice(0, 300)}`);
  };

  const loop = async (id: number): Promise<void> => {
    for (let seq = 0; !stopped && !client.isClosed; seq++) {
      const body = options.body(id, seq);
      const t0 = performance.now();
      let status = 0;
      let text = '';
      try {
        const res = await client.post(options.path, body);
        status = res.status;
        text = res.body;
      } catch (error) {
        text = error instanceof Error ? error.message : String(error);
      }
      const t1 = performance.now();
      if (t0 < windowStart || t1 > windowEnd) continue;
      if (status === 200) {
        ok++;
        latencies.push(t1 - t0);
        perSlice[Math.min(perSlice.length - 1, Math.floor((t1 - windowStart) / SLICE_MS))]++;
        options.onOk?.(id, seq, text);
      } else {
        recordError(status, text);
      }
    }
  };

  const loops = Array.from({ length: options.clients }, (_, i) => loop(i));
  await new Promise((r) => setTimeout(r, options.warmupMs));
  options.meter?.begin();
  windowStart = performance.now();
  await new Promise((r) => setTimeout(r, options.durationMs));
  windowEnd = performance.now();
  const cpu = options.meter?.end() ?? null;
  stopped = true;
  await Promise.all(loops);
  const seconds = (windowEnd - windowStart) / 1000;
  return {
    requests: ok + errors,
    ok,
    errors,
    errorsByStatus,
    errorSamples,
    seconds,
    rate: ok / seconds,
    latency: summarize(latencies),
    cpu,
    perSlice,
  };
}

/** Sends `total` requests through `clients` concurrent loops (seeding); throws on any non-200. */
export async function runCount(
  client: Client,
  options: { clients: number; total: number; path: string; body: (index: number) => string },
): Promise<{ seconds: number; rate: number }> {
  let next = 0;
  const t0 = performance.now();
  const loop = async (): Promise<void> => {
    for (let i = next++; i < options.total; i = next++) {
      const res = await client.post(options.path, options.body(i));
      if (res.status !== 200) throw new Error(`seeding request ${i} answered ${res.status}: ${res.body.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: options.clients }, () => loop()));
  const seconds = (performance.now() - t0) / 1000;
  return { seconds, rate: options.total / seconds };
}
