/**
 * What one tenant's event streams may hold, with the real processes (issue 16): a subscriber that
 * does not read is ended with a last event saying why once its buffer passes the bound; a member
 * cannot take all of its organization's streams; the process's buffer budget covers every
 * organization; the open-streams gauge counts what is open on every path; SSE ids do not show
 * log positions and only resume in the organization they were sent to.
 */
import * as net from 'node:net';
import { ALICE, BOB, CAROL, type Credentials, GINA, Stack, eventually } from './support/harness';
import { PUBLISH, SUBSCRIBE, SseClient, startSecondApi } from './support/sse';

const NOTES = 'svc.notes.v1.NotesService';
const WATCH = '/svc.history.v1.HistoryService/WatchEvents';
const DAVE: Credentials = { username: 'dave-key', password: 'dave-secret' };
const OPAQUE_ID = /^[A-Za-z0-9_-]{43}$/;

/** The value of one sample of the Prometheus text (0 when the series is absent). */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

/** A subscriber on a raw socket that stops reading once the stream is live; `received` is what it read. */
class StalledSubscriber {
  received = '';
  closedByServer = false;
  private constructor(private readonly socket: net.Socket) {}

  static async open(baseUrl: string, as: Credentials, path = SUBSCRIBE): Promise<StalledSubscriber> {
    const socket = net.connect(Number(new URL(baseUrl).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const subscriber = new StalledSubscriber(socket);
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (subscriber.received += d));
    socket.on('close', () => (subscriber.closedByServer = true));
    const auth = Buffer.from(`${as.username}:${as.password}`).toString('base64');
    socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${auth}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`);
    await eventually(async () => (subscriber.received.includes(': subscribed') ? true : undefined));
    socket.pause();
    return subscriber;
  }

  /** Reads everything the server sends until it closes the connection. */
  async readToEnd(): Promise<string> {
    this.socket.resume();
    await eventually(async () => (this.closedByServer ? true : undefined), 20_000);
    return this.received;
  }

  /** The last event's `event:` name and data, and the last id the client saw. */
  static last(text: string): { event?: string; data: Record<string, unknown>; lastId?: string } {
    // Chunked transfer encoding interleaves size lines; the SSE lines are what is left once they are dropped.
    const lines = text.split(/\r\n/).join('\n').split('\n');
    const event = [...lines].reverse().find((l) => l.startsWith('event: '));
    const data = [...lines].reverse().find((l) => l.startsWith('data: '));
    const id = [...lines].reverse().find((l) => l.startsWith('id: '));
    return { event: event?.slice(7), data: JSON.parse(data!.slice(6)) as Record<string, unknown>, lastId: id?.slice(4) };
  }

  destroy(): void {
    this.socket.destroy();
  }
}

describe('Stream limits', () => {
  let stack: Stack;
  /** A second api instance whose only tight limit is the process's buffer budget. */
  let budgeted: string;
  const clients: SseClient[] = [];

  beforeAll(async () => {
    stack = await Stack.start({
      env: {
        SVC_AGENT_RUNTIME: 'off',
        SVC_NOTIFY_MAX_BUFFER_BYTES: '65536',
        SVC_NOTIFY_MAX_SUBSCRIBERS_PER_MEMBER: '3',
        SVC_NOTIFY_MAX_SUBSCRIBERS_PER_ORG: '5',
      },
    });
    budgeted = await startSecondApi(stack, { SVC_AGENT_RUNTIME: 'off', SVC_NOTIFY_MAX_BUFFER_BYTES: String(64 * 1024 * 1024), SVC_NOTIFY_MAX_BUFFERED_BYTES_TOTAL: '100000' });
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
  });
  afterAll(() => stack.destroy());

  const subscribe = async (baseUrl: string, options: Parameters<typeof SseClient.open>[1] = {}) => {
    const client = await SseClient.open(baseUrl, options);
    clients.push(client);
    return client;
  };
  const metrics = async (baseUrl: string) => (await fetch(`${baseUrl}/metrics`)).text();
  const chunk = 'x'.repeat(60_000);
  const big = { value: { '@type': 't/big', a: chunk, b: chunk, c: chunk } };
  const publish = async (baseUrl: string, as: Credentials, notification: Record<string, unknown>) => {
    const res = await fetch(`${baseUrl}${PUBLISH}`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${as.username}:${as.password}`).toString('base64')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ notification }),
    });
    expect(res.status).toBe(200);
  };
  /** Publishes 180 kB notifications as Alice until `series` counts one more (what the kernel's socket buffers absorb first varies). */
  const publishUntil = async (baseUrl: string, series: string): Promise<number> => {
    const before = sample(await metrics(baseUrl), series);
    for (let i = 0; i < 300; i++) {
      await publish(baseUrl, ALICE, big);
      if (sample(await metrics(baseUrl), series) > before) return i + 1;
    }
    throw new Error(`${series} did not move`);
  };

  it('ends a subscriber that does not read with a last event saying why, closes it, and lets it resume from its last id', async () => {
    const stalled = await StalledSubscriber.open(stack.baseUrl, BOB);
    const published = await publishUntil(stack.baseUrl, 'svc_sse_slow_consumers_total{limit="stream"}');

    const text = await stalled.readToEnd();
    const last = StalledSubscriber.last(text);
    expect(last.event).toBe('error');
    expect(last.data).toMatchObject({
      error: {
        code: 429,
        status: 'RESOURCE_EXHAUSTED',
        message: expect.stringContaining('Last-Event-ID'),
        details: [{ reason: 'SLOW_CONSUMER', metadata: { limit: 'stream' } }],
      },
    });
    // It got less than was published: what its buffer could not hold was dropped, not kept.
    expect(text.length).toBeLessThan(published * 3 * chunk.length);
    // Others are unaffected.
    const reader = await subscribe(stack.baseUrl, { as: CAROL });
    await publish(stack.baseUrl, ALICE, { payload: 'still delivering' });
    await eventually(async () => (reader.payloads().includes('still delivering') ? true : undefined));
    // The id the stream opened with resumes it.
    expect(last.lastId).toMatch(OPAQUE_ID);
    const resumed = await subscribe(stack.baseUrl, { as: BOB, lastEventId: last.lastId });
    expect(resumed.status).toBe(200);
  }, 120_000);

  it('caps streams per member: a member past the cap is refused while another member of the organization subscribes', async () => {
    const bobs: SseClient[] = [];
    for (let i = 0; i < 3; i++) bobs.push(await subscribe(stack.baseUrl, { as: BOB }));
    const refused = await SseClient.open(stack.baseUrl, { as: BOB });
    expect(refused.status).toBe(429);
    expect(refused.errorBody).toMatchObject({
      error: { status: 'RESOURCE_EXHAUSTED', message: expect.stringContaining('at most 3 notification streams per member'), details: expect.arrayContaining([expect.objectContaining({ reason: 'TOO_MANY_STREAMS', metadata: { limit: 'member', max: '3' } })]) },
    });
    // Carol, a member of the same organization, still subscribes, and receives.
    const carol = await subscribe(stack.baseUrl, { as: CAROL });
    expect(carol.status).toBe(200);
    await publish(stack.baseUrl, ALICE, { payload: 'for everyone' });
    await eventually(async () => (carol.events.length === 1 && bobs.every((b) => b.events.length === 1) ? true : undefined));
    // The organization's cap still holds over its members together (3 + 1 + 1 = 5).
    expect((await subscribe(stack.baseUrl, { as: ALICE })).status).toBe(200);
    const orgFull = await SseClient.open(stack.baseUrl, { as: DAVE });
    expect(orgFull.status).toBe(429);
    expect(orgFull.errorBody).toMatchObject({ error: { details: expect.arrayContaining([expect.objectContaining({ metadata: { limit: 'organization', max: '5' } })]) } });
    // A closed stream gives its member the place back.
    await bobs[0].close();
    await eventually(async () => {
      const again = await SseClient.open(stack.baseUrl, { as: BOB });
      if (again.status !== 200) return undefined;
      clients.push(again);
      return true;
    });
  });

  it("ends a lagging stream and refuses new ones, any organization's, while the process's buffer budget is spent", async () => {
    const stalled = await StalledSubscriber.open(budgeted, BOB);
    await publishUntil(budgeted, 'svc_sse_slow_consumers_total{limit="process"}');
    // Its buffer is far under its own bound: the process's budget ended it, and refuses Globex too while it holds it.
    const refused = await SseClient.open(budgeted, { as: GINA });
    expect(refused.status).toBe(429);
    expect(refused.errorBody).toMatchObject({ error: { status: 'RESOURCE_EXHAUSTED', details: expect.arrayContaining([expect.objectContaining({ reason: 'TOO_MANY_STREAMS', metadata: { limit: 'buffer_budget', max: '100000' } })]) } });
    const last = StalledSubscriber.last(await stalled.readToEnd());
    expect(last).toMatchObject({ event: 'error', data: { error: { details: [{ reason: 'SLOW_CONSUMER', metadata: { limit: 'process' } }] } } });
    // Once the lagging client has read (or been cut), the budget admits again.
    await eventually(async () => {
      const again = await SseClient.open(budgeted, { as: GINA });
      if (again.status !== 200) return undefined;
      clients.push(again);
      return true;
    });
  }, 120_000);

  it('counts exactly the open streams: refused ones never, closed ones (by the client, by the server) no longer', async () => {
    const gauge = async () => sample(await metrics(stack.baseUrl), 'svc_sse_subscribers');
    await eventually(async () => ((await gauge()) === 0 ? true : undefined));
    for (let i = 0; i < 3; i++) await subscribe(stack.baseUrl, { as: BOB });
    for (let i = 0; i < 3; i++) await subscribe(stack.baseUrl, { as: CAROL, path: WATCH });
    // Refused: by the member cap, by the organization's cap, and a watch past the member cap.
    expect((await SseClient.open(stack.baseUrl, { as: BOB })).status).toBe(429);
    await subscribe(stack.baseUrl, { as: CAROL });
    await subscribe(stack.baseUrl, { as: ALICE });
    expect((await SseClient.open(stack.baseUrl, { as: DAVE })).status).toBe(429);
    expect((await SseClient.open(stack.baseUrl, { as: CAROL, path: WATCH })).status).toBe(429);
    expect(await gauge()).toBe(8);
    // Closed by the clients.
    for (const c of clients.splice(0)) await c.close();
    await eventually(async () => ((await gauge()) === 0 ? true : undefined));
    // Closed by the server: a client that does not read, ended as a slow consumer.
    const stalled = await StalledSubscriber.open(stack.baseUrl, DAVE);
    expect(await gauge()).toBe(1);
    await publishUntil(stack.baseUrl, 'svc_sse_slow_consumers_total{limit="stream"}');
    await stalled.readToEnd();
    await eventually(async () => ((await gauge()) === 0 ? true : undefined));
  }, 120_000);

  it('shows opaque ids: no log position, the same for every stream of the organization, refused in another organization', async () => {
    const note = (id: string, as: Credentials) => stack.rpc(`${NOTES}/CreateNote`, { note_id: id, note: { display_name: id } }, as);
    const filter = 'collection = "notes"';
    const acme = await subscribe(stack.baseUrl, { path: WATCH, body: { filter } });
    const acmeAgain = await subscribe(stack.baseUrl, { path: WATCH, body: { filter }, as: CAROL });
    const globex = await subscribe(stack.baseUrl, { path: WATCH, body: { filter }, as: GINA });
    expect((await note('ids-a1', ALICE)).status).toBe(200);
    // Many events of another organization between two of Acme's.
    for (let i = 0; i < 20; i++) expect((await note(`ids-g${i}`, GINA)).status).toBe(200);
    expect((await note('ids-a2', ALICE)).status).toBe(200);
    await eventually(async () => (acme.events.length === 2 && acmeAgain.events.length === 2 && globex.events.length === 20 ? true : undefined));

    const ids = acme.events.map((e) => e.id!);
    for (const id of ids) expect(id).toMatch(OPAQUE_ID);
    // A watched event's position is the same opaque id; nothing in the stream is a log position.
    expect(acme.events.map((e) => e.data.position)).toEqual(ids);
    expect(acme.lastId).toBe(ids[1]);
    // Every stream of the organization names an event alike (a client may reconnect with any of them).
    expect(acmeAgain.events.map((e) => e.id)).toEqual(ids);

    // Resuming from the first delivers exactly the second: nothing skipped, nothing repeated.
    const resumed = await subscribe(stack.baseUrl, { path: WATCH, body: { filter }, lastEventId: ids[0] });
    await eventually(async () => (resumed.events.length === 1 ? true : undefined));
    expect(resumed.events.map((e) => e.id)).toEqual([ids[1]]);

    // Another organization's id, or an altered one, is refused before the stream opens.
    for (const foreign of [globex.events[0].id!, `${ids[0].slice(0, 10)}${ids[0][10] === 'A' ? 'B' : 'A'}${ids[0].slice(11)}`, '12/12']) {
      const refused = await SseClient.open(stack.baseUrl, { path: WATCH, lastEventId: foreign });
      expect(refused.status).toBe(400);
      expect(refused.errorBody).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining('Last-Event-ID') } });
      const notification = await SseClient.open(stack.baseUrl, { as: GINA, lastEventId: foreign === globex.events[0].id ? ids[0] : foreign });
      expect(notification.status).toBe(400);
    }
  });
});
