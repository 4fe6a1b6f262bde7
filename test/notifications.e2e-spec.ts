/**
 * The notification stream over HTTP, with the real processes: two api instances on one data
 * directory and one projector. Sessions are written with Write, as a user writes them; the agent
 * runtime is off here, so the committed activity of a session is exactly what the test writes
 * (session activity with the runtime at work: session-activity.e2e-spec.ts).
 */
import { randomUUID } from 'node:crypto';
import * as net from 'node:net';
import { ALICE, BOB, type Credentials, GINA, Stack, eventually, sleep } from './support/harness';
import { PUBLISH, SUBSCRIBE, SseClient, startSecondApi } from './support/sse';

const TYPE_HOST = 'types.example.test';
const S = 'svc.nxagent.v2.AgentService';

describe('Notification stream', () => {
  let stack: Stack;
  let second: string;
  const clients: SseClient[] = [];

  beforeAll(async () => {
    stack = await Stack.start({
      env: {
        SVC_TYPE_HOST: TYPE_HOST,
        SVC_NOTIFY_HEARTBEAT_MS: '200',
        SVC_NOTIFY_MAX_SUBSCRIBERS_PER_ORG: '6',
        SVC_NOTIFY_MAX_BUFFER_BYTES: '65536',
        SVC_AGENT_RUNTIME: 'off',
      },
    });
    // A second api instance on the same data directory (`npm run start:api`), the projector shared.
    second = await startSecondApi(stack);
    for (const as of [ALICE, GINA]) expect((await stack.rpc(`${S}/CreateAgent`, { agent_id: 'triage', agent: { prompt: 'You triage.' } }, as)).status).toBe(200);
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
  const publish = (notification: Record<string, unknown>, as: Credentials = ALICE, baseUrl?: string) =>
    baseUrl
      ? fetch(`${baseUrl}${PUBLISH}`, {
          method: 'POST',
          headers: { authorization: `Basic ${Buffer.from(`${as.username}:${as.password}`).toString('base64')}`, 'content-type': 'application/json' },
          body: JSON.stringify({ notification }),
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }))
      : stack.rpc(PUBLISH.slice(1), { notification }, as);

  const activity = (text: string) => ({ '@type': `${TYPE_HOST}/svc.nxagent.v1.Activity`, user: { text: { text } } });
  /** A checkpoint Write of user messages to a session of agents/triage, as `as`; checks the offset they land at. */
  const write = async (as: Credentials, session: string, texts: string[], firstOffset: number): Promise<void> => {
    const res = await stack.rpc<{ sessionLength: number }>(`${S}/Write`, { session: `agents/triage/sessions/${session}`, messages: texts.map(activity) }, as);
    expect(res.status).toBe(200);
    expect(res.body.sessionLength).toBe(firstOffset + texts.length);
  };

  it('delivers a Publish on one api instance to subscribers on both, REST and RPC alike', async () => {
    const here = await subscribe(stack.baseUrl);
    const there = await subscribe(second, { path: '/v1/notifications:subscribe' });
    const res = await publish({ topic: 'agents/triage/sessions/s1', payload: 'hello', value: { '@type': `${TYPE_HOST}/svc.nxagent.v1.AssistantOutput`, seq: 0, text: 'Hi' } }, ALICE, second);
    expect(res).toEqual({ status: 200, body: {} });
    await eventually(async () => (here.events.length === 1 && there.events.length === 1 ? true : undefined));
    const expected = { topic: 'agents/triage/sessions/s1', payload: 'hello', value: { '@type': `${TYPE_HOST}/svc.nxagent.v1.AssistantOutput`, seq: 0, text: 'Hi' } };
    expect(there.events[0]).toEqual({ id: undefined, data: expected });
    expect(here.events[0].data).toEqual(expected);
    // The REST alias of Publish reaches them too.
    expect((await stack.request('POST', '/v1/notifications:publish', { body: { notification: { payload: 'rest' } } })).status).toBe(200);
    await eventually(async () => (there.payloads().includes('rest') ? true : undefined));
  });

  it('narrows to a topic and the topics under it', async () => {
    const session = await subscribe(second, { body: { topic: 'agents/triage/sessions/s1' } });
    const agent = await subscribe(second, { body: { topic: 'agents/triage' } });
    const all = await subscribe(stack.baseUrl);
    for (const [topic, payload] of [
      ['agents/triage/sessions/s1', 's1'],
      ['agents/triage/sessions/s2', 's2'],
      ['agents/other/sessions/s1', 'other'],
      [undefined, 'org-wide'],
    ]) {
      expect((await publish({ topic, payload })).status).toBe(200);
    }
    await eventually(async () => (all.events.length === 4 ? true : undefined));
    await eventually(async () => (agent.events.length === 2 ? true : undefined));
    expect(session.payloads()).toEqual(['s1']);
    expect(agent.payloads()).toEqual(['s1', 's2']);
    expect(all.payloads()).toEqual(['s1', 's2', 'other', 'org-wide']);
  });

  it('keeps organizations apart: another organization is refused, and never receives', async () => {
    const denied = await SseClient.open(stack.baseUrl, { body: { organization_id: 'globex' } });
    expect(denied.status).toBe(403);
    expect(denied.errorBody).toMatchObject({ error: { status: 'PERMISSION_DENIED', message: expect.stringContaining("organization_id 'globex'") } });
    const acme = await subscribe(stack.baseUrl, { body: { organization_id: 'acme' } });
    const globex = await subscribe(second, { as: GINA });
    await publish({ payload: 'for globex' }, GINA);
    await publish({ payload: 'for acme' });
    await eventually(async () => (acme.events.length === 1 && globex.events.length === 1 ? true : undefined));
    await sleep(100);
    expect(acme.payloads()).toEqual(['for acme']);
    expect(globex.payloads()).toEqual(['for globex']);
  });

  it('Publish needs NOTIFICATIONS_PUBLISH and a notification; Subscribe needs only membership', async () => {
    const bobListens = await subscribe(stack.baseUrl, { as: BOB });
    const denied = await publish({ payload: 'x' }, BOB);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ error: { status: 'PERMISSION_DENIED', message: expect.stringContaining('NOTIFICATIONS_PUBLISH') } });
    const missing = await stack.rpc(PUBLISH.slice(1), {});
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body)).toContain('notification is required');
    expect((await publish({ value: { seq: 1 } })).body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining('@type') } });
    expect((await publish({ payload: 'x', topic: 'a//b' })).status).toBe(400);
    // Each string is under the request's 64 Ki-character limit; together they pass the notification's 256 KiB.
    const chunk = 'x'.repeat(60_000);
    expect((await publish({ value: { '@type': 't/x', a: chunk, b: chunk, c: chunk, d: chunk, e: chunk } })).body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining('too large') } });
    const badTopic = await SseClient.open(stack.baseUrl, { body: { topic: '/leading' } });
    expect(badTopic.status).toBe(400);
    await publish({ payload: 'ok' });
    await eventually(async () => (bobListens.events.length === 1 ? true : undefined));
    expect(bobListens.payloads()).toEqual(['ok']);
  });

  it('carries committed session activity with opaque ids of log positions; a reconnect with Last-Event-ID gets the committed ones it missed and no ephemeral ones', async () => {
    const session = `s-${randomUUID().slice(0, 8)}`;
    const topic = `agents/triage/sessions/${session}`;
    expect((await stack.rpc(`${S}/CreateSession`, { parent: 'agents/triage', session_id: session })).status).toBe(200);
    expect((await stack.rpc(`${S}/CreateSession`, { parent: 'agents/triage', session_id: `${session}-g` }, GINA)).status).toBe(200);
    const first = await subscribe(second, { body: { topic } });
    await write(ALICE, session, ['one'], 0);
    await eventually(async () => (first.events.length === 2 ? true : undefined));
    expect(first.events.map((e) => e.data)).toEqual([
      { topic, value: { '@type': `${TYPE_HOST}/svc.nxagent.v1.ActivityNotification`, sessionOffset: 0, activity: { '@type': `${TYPE_HOST}/svc.nxagent.v1.Activity`, user: { text: { text: 'one' } } } } },
      { topic, value: { '@type': `${TYPE_HOST}/svc.nxagent.v1.Activity`, user: { text: { text: 'one' } } } },
    ]);
    // One id per event, on its last notification: a client cut off mid-event resumes before it.
    expect(first.events[0].id).toBeUndefined();
    expect(first.events[1].id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const resumeFrom = first.lastId!;
    await first.close();

    // While disconnected: committed messages (one in another organization), and ephemeral ones.
    await write(ALICE, session, ['two', 'three'], 1);
    await write(GINA, `${session}-g`, ['not yours'], 0);
    await publish({ topic, payload: 'ephemeral while away' });
    await write(ALICE, session, ['four'], 3);

    const again = await subscribe(stack.baseUrl, { body: { topic }, lastEventId: resumeFrom });
    await eventually(async () => (again.events.length === 6 ? true : undefined));
    const offsets = (c: SseClient) =>
      c.events.map((e) => e.data.value as Record<string, unknown>).filter((v) => v !== undefined && String(v['@type']).endsWith('ActivityNotification')).map((v) => v.sessionOffset);
    expect(offsets(again)).toEqual([1, 2, 3]);
    expect(again.payloads().filter((p) => p !== undefined)).toEqual([]);
    // Then live: committed and ephemeral both.
    await write(ALICE, session, ['five'], 4);
    await publish({ topic, payload: 'live ephemeral' });
    await eventually(async () => (again.events.length === 9 ? true : undefined));
    expect(offsets(again)).toEqual([1, 2, 3, 4]);
    expect(again.payloads().filter((p) => p !== undefined)).toEqual(['live ephemeral']);

    const garbled = await SseClient.open(stack.baseUrl, { lastEventId: 'not-a-position' });
    expect(garbled.status).toBe(400);
    expect(garbled.errorBody).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining('Last-Event-ID') } });
  });

  it('keeps an idle stream open with heartbeat comments', async () => {
    const idle = await subscribe(second);
    await eventually(async () => (idle.comments.filter((c) => c === 'heartbeat').length >= 2 ? true : undefined));
    expect(idle.ended).toBe(false);
    expect(idle.events).toEqual([]);
  });

  it('limits open streams per organization on an instance, and frees a place when a client closes', async () => {
    const open: SseClient[] = [];
    for (let i = 0; i < 6; i++) open.push(await SseClient.open(second));
    const refused = await SseClient.open(second);
    expect(refused.status).toBe(429);
    expect(refused.errorBody).toMatchObject({ error: { status: 'RESOURCE_EXHAUSTED', message: expect.stringContaining('at most 6') } });
    // The limit is per instance: the other one still admits.
    clients.push(await subscribe(stack.baseUrl));
    // Closing clients frees their places (and their bus and log subscriptions with them).
    await open[0].close();
    await open[1].close();
    const admitted = await eventually(async () => {
      const c = await SseClient.open(second);
      if (c.status === 200) return c;
      return undefined;
    });
    clients.push(admitted, ...open.slice(2));
    await publish({ payload: 'after closes' });
    await eventually(async () => (admitted.events.length === 1 ? true : undefined));
    for (const closed of open.slice(0, 2)) expect(closed.events).toEqual([]);
  });

  it('disconnects a subscriber that cannot keep up instead of buffering without bound', async () => {
    // A raw socket that stops reading after the headers: the server's buffer for it fills.
    const socket = net.connect(Number(new URL(second).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const auth = Buffer.from(`${ALICE.username}:${ALICE.password}`).toString('base64');
    socket.write(`POST ${SUBSCRIBE} HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${auth}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`);
    let received = 0;
    let closedByServer = false;
    socket.on('data', (d: Buffer) => (received += d.length));
    socket.on('close', () => (closedByServer = true));
    await eventually(async () => (received > 0 ? true : undefined));
    socket.pause();
    const chunk = 'x'.repeat(60_000);
    const big = { '@type': 't/big', a: chunk, b: chunk, c: chunk };
    const published = 150; // 27 MB: far past the 64 KiB bound and what the kernel's socket buffers hold
    for (let i = 0; i < published; i++) expect((await publish({ value: big }, ALICE, second)).status).toBe(200);
    socket.resume();
    await eventually(async () => (closedByServer ? true : undefined), 20_000);
    expect(received).toBeLessThan(published * 3 * chunk.length);
    // The others are unaffected.
    const healthy = await subscribe(second);
    await publish({ payload: 'still delivering' }, ALICE, second);
    await eventually(async () => (healthy.events.length === 1 ? true : undefined));
  }, 60_000);
});
