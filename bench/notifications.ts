/**
 * Notification stream benchmarks: Publish-to-delivery latency with subscribers spread over two api
 * processes, and the memory an api spends on idle subscribers. Subscribers are plain HTTP streams
 * held by the bench process (node:http, one socket each).
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { Credentials } from './stack';
import { Samples, summarize, type Summary } from './stats';

const SUBSCRIBE = '/svc.notifications.v1.NotificationService/Subscribe';
const PUBLISH = '/svc.notifications.v1.NotificationService/Publish';

interface Subscriber {
  request: http.ClientRequest;
  close(): void;
}

const auth = (as: Credentials) => `Basic ${Buffer.from(`${as.username}:${as.password}`).toString('base64')}`;
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

/** Opens one stream; `onData` gets each `data:` line's JSON. Resolves once the server's first frame arrived. */
function subscribe(baseUrl: string, as: Credentials, onData: (data: { payload?: string }) => void): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${baseUrl}${SUBSCRIBE}`, { method: 'POST', agent, headers: { authorization: auth(as), 'content-type': 'application/json' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`Subscribe answered ${res.statusCode}`));
      let buffer = '';
      let first = true;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (first) {
          first = false;
          resolve({ request, close: () => request.destroy() });
        }
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          for (const line of frame.split('\n')) if (line.startsWith('data: ')) onData(JSON.parse(line.slice(6)) as { payload?: string });
        }
      });
      res.on('error', () => undefined);
    });
    request.on('error', (error) => reject(error));
    request.end('{}');
  });
}

async function publish(baseUrl: string, as: Credentials, payload: string): Promise<void> {
  const res = await fetch(`${baseUrl}${PUBLISH}`, {
    method: 'POST',
    headers: { authorization: auth(as), 'content-type': 'application/json' },
    body: JSON.stringify({ notification: { topic: 'bench/latency', payload } }),
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`Publish answered ${res.status}`);
}

export interface DeliveryResult {
  subscribers: number;
  publishes: number;
  latency: Summary;
  /** Deliveries that never arrived (should be 0). */
  missing: number;
}

/**
 * `subscribers` streams split evenly over the api URLs; `publishes` notifications, one at a time,
 * each published alternately on one api and the other; latency from the Publish call to each
 * subscriber's receipt (same clock: the bench process does both).
 */
export async function measureDelivery(urls: string[], as: Credentials, subscribers: number, publishes: number): Promise<DeliveryResult> {
  const sent = new Map<string, number>();
  const samples = new Samples();
  let received = 0;
  const onData = (data: { payload?: string }): void => {
    const at = data.payload === undefined ? undefined : sent.get(data.payload);
    if (at === undefined) return;
    samples.push(performance.now() - at);
    received++;
  };
  const subs: Subscriber[] = [];
  try {
    for (let i = 0; i < subscribers; i++) subs.push(await subscribe(urls[i % urls.length], as, onData));
    for (let n = 0; n < publishes; n++) {
      const payload = `p${n}`;
      const expected = (n + 1) * subscribers;
      sent.set(payload, performance.now());
      await publish(urls[n % urls.length], as, payload);
      // One at a time: the next publish starts once every subscriber has this one (or 5 s passed).
      const deadline = Date.now() + 5000;
      while (received < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1));
    }
    return { subscribers, publishes, latency: summarize(samples), missing: subscribers * publishes - received };
  } finally {
    for (const s of subs) s.close();
  }
}

export interface IdleMemoryResult {
  subscribers: number;
  rssBeforeMb: number;
  rssAfterMb: number;
  perSubscriberKb: number;
}

/** The api's resident memory before and after `count` idle streams are open (Linux /proc). */
export async function measureIdleMemory(url: string, apiPid: number, as: Credentials, count: number): Promise<IdleMemoryResult> {
  const before = rssMb(apiPid);
  const subs: Subscriber[] = [];
  try {
    for (let i = 0; i < count; i++) subs.push(await subscribe(url, as, () => undefined));
    // Let the api settle (allocations of the last accepts, a GC cycle) before reading.
    await new Promise((r) => setTimeout(r, 2000));
    const after = rssMb(apiPid);
    return { subscribers: count, rssBeforeMb: before, rssAfterMb: after, perSubscriberKb: ((after - before) * 1024) / count };
  } finally {
    for (const s of subs) s.close();
  }
}

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  return kb / 1024;
}
