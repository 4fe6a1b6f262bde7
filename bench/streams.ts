/**
 * Streams that never read (issue 16): many subscribers of one organization that stop reading once
 * their stream is live, large Publishes to that organization, and what it costs the api (resident
 * memory) and another organization (its request latency meanwhile). Loopback only: the subscribers
 * are sockets of this process, bounded by `streams`.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { Credentials } from './stack';
import { Samples, summarize, type Summary } from './stats';

const SUBSCRIBE = '/svc.notifications.v1.NotificationService/Subscribe';
const PUBLISH = '/svc.notifications.v1.NotificationService/Publish';
const LIST_NOTES = '/svc.notes.v1.NotesService/ListNotes';
/** A Publish's strings stay under the request's per-string limit (64 Ki characters); a notification holds several. */
const STRING = 60_000;

const auth = (as: Credentials) => `Basic ${Buffer.from(`${as.username}:${as.password}`).toString('base64')}`;

export interface StreamsResult {
  streams: number;
  publishes: number;
  publishBytes: number;
  rssBeforeMb: number;
  rssStreamsOpenMb: number;
  rssPeakMb: number;
  rssAfterMb: number;
  /** Streams the api ended as slow consumers (svc_sse_slow_consumers_total, all limits). */
  endedSlow: number;
  publishLatency: Summary;
  otherTenant: Summary;
}

interface Stalled {
  close(): void;
}

/** One stream that stops reading once the server's first frame arrived (its socket's buffers fill). */
function openStalled(baseUrl: string, as: Credentials, agent: http.Agent): Promise<Stalled> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${baseUrl}${SUBSCRIBE}`, { method: 'POST', agent, headers: { authorization: auth(as), 'content-type': 'application/json' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`Subscribe answered ${res.statusCode}`));
      const stalled: Stalled = { close: () => request.destroy() };
      res.once('data', () => {
        res.pause();
        resolve(stalled);
      });
      res.on('error', () => undefined);
    });
    request.on('error', reject);
    request.end('{}');
  });
}

/**
 * `streams` stalled subscribers spread over `readers` (members of the publisher's organization),
 * then `publishes` notifications of about `bytes` each, one after the other, while `other` (another
 * organization) sends ListNotes one at a time; the api's RSS sampled throughout.
 */
export async function measureStalledStreams(
  url: string,
  apiPid: number,
  publisher: Credentials,
  readers: Credentials[],
  other: Credentials,
  options: { streams: number; publishes: number; bytes: number },
): Promise<StreamsResult> {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const rssBeforeMb = rssMb(apiPid);
  const stalled: Stalled[] = [];
  let peak = rssBeforeMb;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(apiPid))), 50);
  let measuring = true;
  const otherSamples = new Samples();
  try {
    for (let i = 0; i < options.streams; i++) stalled.push(await openStalled(url, readers[i % readers.length], agent));
    await new Promise((r) => setTimeout(r, 1000));
    const rssStreamsOpenMb = rssMb(apiPid);

    // Another organization's requests, one at a time, for as long as the publishes run.
    const otherLoop = (async () => {
      while (measuring) {
        const started = performance.now();
        const res = await fetch(`${url}${LIST_NOTES}`, { method: 'POST', headers: { authorization: auth(other), 'content-type': 'application/json' }, body: '{"page_size":1}' });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`ListNotes answered ${res.status}`);
        otherSamples.push(performance.now() - started);
      }
    })();

    const parts = Math.max(1, Math.ceil(options.bytes / STRING));
    const value: Record<string, unknown> = { '@type': 'bench/big' };
    for (let p = 0; p < parts; p++) value[`s${p}`] = 'x'.repeat(Math.floor(options.bytes / parts));
    const body = JSON.stringify({ notification: { topic: 'bench/big', value } });
    const publishSamples = new Samples();
    for (let n = 0; n < options.publishes; n++) {
      const started = performance.now();
      const res = await fetch(`${url}${PUBLISH}`, { method: 'POST', headers: { authorization: auth(publisher), 'content-type': 'application/json' }, body });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`Publish answered ${res.status}`);
      publishSamples.push(performance.now() - started);
      // What the issue measured: publishes back to back, the fan-out running between them.
      await new Promise((r) => setTimeout(r, 20));
    }
    // Let the fan-out of the last one finish while the other tenant still measures.
    await new Promise((r) => setTimeout(r, 2000));
    measuring = false;
    await otherLoop;
    const rssAfterMb = rssMb(apiPid);
    return {
      streams: options.streams,
      publishes: options.publishes,
      publishBytes: body.length,
      rssBeforeMb,
      rssStreamsOpenMb,
      rssPeakMb: Math.max(peak, rssAfterMb),
      rssAfterMb,
      endedSlow: await slowConsumers(url),
      publishLatency: summarize(publishSamples),
      otherTenant: summarize(otherSamples),
    };
  } finally {
    measuring = false;
    clearInterval(sampler);
    for (const s of stalled) s.close();
    agent.destroy();
  }
}

async function slowConsumers(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('svc_sse_slow_consumers_total{'))
    .reduce((total, l) => total + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024;
}
