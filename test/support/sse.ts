/**
 * Notification streams over HTTP for end-to-end tests: a server-sent events client, and a second
 * api instance on a stack's data directory (what `npm run start:api` adds beside a running stack).
 */
import { ALICE, API_MAIN, type Credentials, eventually, freePort, type Stack } from './harness';

export const SUBSCRIBE = '/svc.notifications.v1.NotificationService/Subscribe';
export const PUBLISH = '/svc.notifications.v1.NotificationService/Publish';

export interface SseEvent {
  id?: string;
  data: Record<string, unknown>;
}

/** A server-sent events client on fetch: events with their ids, comments, and the last id seen. */
export class SseClient {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  lastId: string | undefined;
  status = 0;
  ended = false;
  errorBody: Record<string, unknown> | undefined;
  private readonly abort = new AbortController();
  private done: Promise<void> = Promise.resolve();

  static async open(baseUrl: string, options: { as?: Credentials; body?: unknown; lastEventId?: string; path?: string } = {}): Promise<SseClient> {
    const client = new SseClient();
    const as = options.as ?? ALICE;
    const headers: Record<string, string> = {
      authorization: `Basic ${Buffer.from(`${as.username}:${as.password}`).toString('base64')}`,
      'content-type': 'application/json',
    };
    if (options.lastEventId) headers['last-event-id'] = options.lastEventId;
    const res = await fetch(`${baseUrl}${options.path ?? SUBSCRIBE}`, { method: 'POST', headers, body: JSON.stringify(options.body ?? {}), signal: client.abort.signal });
    client.status = res.status;
    if (res.status !== 200) {
      client.errorBody = (await res.json()) as Record<string, unknown>;
      return client;
    }
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    client.done = client.read(res.body!.getReader());
    // The server's first frame is a comment: the subscription is live once it arrives.
    await eventually(async () => (client.comments.includes('subscribed') ? true : undefined));
    return client;
  }

  private async read(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          this.frame(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      }
    } catch {
      // aborted by close()
    }
    this.ended = true;
  }

  private frame(text: string): void {
    let id: string | undefined;
    let data: string | undefined;
    for (const line of text.split('\n')) {
      if (line.startsWith(': ')) this.comments.push(line.slice(2));
      else if (line.startsWith('id: ')) id = line.slice(4);
      else if (line.startsWith('data: ')) data = line.slice(6);
    }
    if (id !== undefined) this.lastId = id;
    if (data !== undefined) this.events.push({ id, data: JSON.parse(data) as Record<string, unknown> });
  }

  payloads(): unknown[] {
    return this.events.map((e) => e.data.payload);
  }

  async close(): Promise<void> {
    this.abort.abort();
    await this.done;
  }
}

/** Starts another api instance on the stack's data directory (the stack's projector serves both); answers its base URL. */
export async function startSecondApi(stack: Stack, env: Record<string, string> = {}): Promise<string> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  stack.spawn('api2', API_MAIN, { ...env, SVC_PROJECTOR: 'off', PORT: String(port) });
  await eventually(async () => {
    try {
      return (await fetch(`${baseUrl}/healthz`)).status === 200 ? true : undefined;
    } catch {
      return undefined;
    }
  }, 30_000);
  return baseUrl;
}
