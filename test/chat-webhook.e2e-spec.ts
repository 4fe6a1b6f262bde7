import { createEventStore } from '@svc/infrastructure/event-store';
import { chatSignature } from '@svc/infrastructure/integrations/chat/signature';
import { ALICE, CHATOPS_SIGNING_SECRET, type Credentials, MACHINE, Stack, TEST_CONFIG_WITH_CHATOPS } from './support/harness';

const T = 'svc.triggers.v1.TriggersService';
const A = 'svc.nxagent.v2.AgentService';
const ROUTE = '/v1/chat-connections:handleEvent';

interface Dispatched {
  dispatched: { trigger: string; session?: string }[];
}
interface Session {
  name: string;
  origin?: { trigger: string; chat?: Record<string, string> };
}

/** A delivery as the platform signs it: raw body, timestamp and signature headers. */
function signed(body: unknown, options: { secret?: string; at?: number } = {}) {
  const raw = JSON.stringify(body);
  const timestamp = String(options.at ?? Math.floor(Date.now() / 1000));
  return { raw, headers: { 'x-slack-request-timestamp': timestamp, 'x-slack-signature': chatSignature(options.secret ?? CHATOPS_SIGNING_SECRET, timestamp, raw) } };
}

let eventCounter = 0;
function message(text: string, over: Record<string, unknown> = {}) {
  eventCounter += 1;
  const ts = `1700000${String(eventCounter).padStart(3, '0')}.000100`;
  return {
    type: 'event_callback',
    team_id: 'T002',
    event_id: `Ev${eventCounter}`,
    event: { type: 'message', channel: 'C102', user: 'U42', text, ts, event_ts: ts, ...over },
  };
}

describe('chat webhook (HandleChatEvent)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start({ config: TEST_CONFIG_WITH_CHATOPS });
    for (const id of ['bot', 'triager']) expect((await stack.rpc(`${A}/CreateAgent`, { agent_id: id, agent: { title: id } })).status).toBe(200);
    const triggers: [string, string, Record<string, unknown>, boolean?][] = [
      ['deploys-posted', 'bot', { chat_message_posted: { chat_connection: 'connections/chatops', channels: ['#deploys'] } }],
      ['deploys-top-level', 'bot', { chat_message_posted: { chat_connection: 'connections/chatops', channels: ['#deploys'], include_thread_replies: false } }],
      ['ops-posted-off', 'bot', { chat_message_posted: { chat_connection: 'connections/chatops', channels: ['#ops'] } }, false],
      ['svc-mentioned', 'bot', { chat_agent_mentioned: { chat_handle: 'connections/chatops/chat-handles/svc', channels: ['#ops'] } }],
      ['triage-mentioned', 'triager', { chat_agent_mentioned: { chat_handle: 'connections/chatops/chat-handles/triage' } }],
    ];
    for (const [id, agent, configuration, enabled] of triggers) {
      const res = await stack.rpc(`${T}/CreateTrigger`, { trigger_id: id, trigger: { agent: `agents/${agent}`, configuration, enabled: enabled ?? true } });
      expect(res.status).toBe(200);
    }
  });
  afterAll(async () => {
    await stack.destroy();
  });

  const deliver = (body: unknown, options: { as?: Credentials | null; secret?: string; at?: number; headers?: Record<string, string> } = {}) => {
    const { raw, headers } = signed(body, options);
    return stack.request<Dispatched>('POST', ROUTE, { as: options.as === undefined ? MACHINE : options.as, rawBody: raw, headers: { ...headers, ...options.headers } });
  };
  const fired = (res: { body: Dispatched }) => res.body.dispatched.map((d) => d.trigger).sort();
  const session = async (name: string) => (await stack.rpc<{ session: Session }>(`${A}/GetSession`, { name })).body.session;

  it('answers the URL verification challenge of a correctly signed request', async () => {
    const res = await deliver({ type: 'url_verification', token: 'x', challenge: 'c-123' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ challenge: 'c-123' });
  });

  it('takes machine credentials only: an API key pair or no credential is UNAUTHENTICATED, and machine credentials open no other route', async () => {
    for (const as of [ALICE, null, { username: 'integrations', password: 'wrong' }]) {
      const res = await deliver({ type: 'url_verification', challenge: 'c' }, { as });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error: { status: 'UNAUTHENTICATED', message: expect.stringMatching(/machine credentials/) } });
    }
    expect((await stack.request('GET', '/v1/auth', { as: MACHINE })).status).toBe(401);
    expect((await stack.rpc(`${T}/ListTriggers`, {}, MACHINE)).status).toBe(401);
  });

  it('refuses a bad signature, a missing one, a stale timestamp and a body changed after signing', async () => {
    const bad = await deliver(message('hello'), { secret: 'not-the-secret' });
    expect(bad.status).toBe(401);
    expect(bad.body).toMatchObject({ error: { status: 'UNAUTHENTICATED', message: expect.stringMatching(/signature does not match/) } });
    const stale = await deliver(message('hello'), { at: Math.floor(Date.now() / 1000) - 3600 });
    expect(stale.body).toMatchObject({ error: { status: 'UNAUTHENTICATED', message: expect.stringMatching(/outside the allowed clock skew/) } });
    const { raw, headers } = signed(message('hello'));
    const tampered = await stack.request('POST', ROUTE, { as: MACHINE, rawBody: raw.replace('hello', 'HELLO'), headers });
    expect(tampered.status).toBe(401);
    const unsigned = await stack.request('POST', ROUTE, { as: MACHINE, body: message('hello') });
    expect(unsigned.body).toMatchObject({ error: { status: 'UNAUTHENTICATED', message: expect.stringMatching(/no chat signature/) } });
    // Whitespace the platform sent is part of what it signed: the raw bytes are verified, not a re-serialization.
    const spaced = JSON.stringify(message('spaced'), null, 2);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const ok = await stack.request<Dispatched>('POST', ROUTE, {
      as: MACHINE,
      rawBody: spaced,
      headers: { 'x-slack-request-timestamp': timestamp, 'x-slack-signature': chatSignature(CHATOPS_SIGNING_SECRET, timestamp, spaced) },
    });
    expect(ok.status).toBe(200);
  });

  it('applies the input limits of every route, even to a correctly signed delivery, and fires nothing for it', async () => {
    let deep: Record<string, unknown> = { x: 1 };
    for (let i = 0; i < 40; i++) deep = { d: deep };
    const cases: Array<[string, string]> = [
      [JSON.stringify({ ...message('deep'), extra: deep }), 'nested more than 32 levels'],
      [JSON.stringify(message('x'.repeat(65_537))), 'at most 65536 are allowed'],
      // JSON.stringify drops a `__proto__` own key's name: write it into the raw text, as an attacker would.
      [JSON.stringify(message('proto')).replace('{', '{"__proto__":{"polluted":true},'), "'__proto__'"],
    ];
    for (const [raw, why] of cases) {
      const timestamp = String(Math.floor(Date.now() / 1000));
      const res = await stack.request('POST', ROUTE, { as: MACHINE, rawBody: raw, headers: { 'x-slack-request-timestamp': timestamp, 'x-slack-signature': chatSignature(CHATOPS_SIGNING_SECRET, timestamp, raw) } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining(why) } });
    }
  });

  it('a message in a listed channel fires the enabled chat_message_posted triggers with the context the spec lists', async () => {
    const res = await deliver(message('deploying <@U0OTHER> now'));
    expect(res.status).toBe(200);
    expect(fired(res)).toEqual(['triggers/deploys-posted', 'triggers/deploys-top-level']);
    const started = await session(res.body.dispatched.find((d) => d.trigger === 'triggers/deploys-posted')?.session ?? '');
    expect(started.name).toMatch(/^agents\/bot\/sessions\//);
    // A person's mention is part of what was said: only bot and user-group mentions are stripped.
    expect(started.origin?.chat).toMatchObject({ chatConnection: 'connections/chatops', teamId: 'T002', channelName: '#deploys', channelId: 'C102', userId: 'U42', text: 'deploying <@U0OTHER> now' });
    expect(started.origin?.chat?.threadTs).toBe(started.origin?.chat?.eventTs);
    // A disabled trigger (#ops) and a channel no trigger lists fire nothing.
    expect(fired(await deliver(message('hi', { channel: 'C101' })))).toEqual([]);
    expect(fired(await deliver(message('hi', { channel: 'C103' })))).toEqual([]);
  });

  it('a thread reply fires only the triggers that include thread replies, in the thread', async () => {
    const res = await deliver(message('reply', { thread_ts: '1690000000.000001' }));
    expect(fired(res)).toEqual(['triggers/deploys-posted']);
    expect((await session(res.body.dispatched[0].session ?? '')).origin?.chat?.threadTs).toBe('1690000000.000001');
  });

  it('a mention fires chat_agent_mentioned triggers; mentioning the default and a custom handle fires only the custom one', async () => {
    const svc = await deliver(message('<@U0SVC> status?', { channel: 'C101', type: 'app_mention' }));
    expect(fired(svc)).toEqual(['triggers/svc-mentioned']);
    expect((await session(svc.body.dispatched[0].session ?? '')).origin?.chat?.text).toBe('status?');
    const both = await deliver(message('<@U0SVC> <@U0TRIAGE|triage> look at this <!subteam^S1|@oncall>', { channel: 'C101' }));
    expect(fired(both)).toEqual(['triggers/triage-mentioned']);
    expect((await session(both.body.dispatched[0].session ?? '')).origin?.chat?.text).toBe('look at this');
    // In #deploys the custom handle fires (its trigger lists no channels) along with the posted triggers.
    expect(fired(await deliver(message('<@U0TRIAGE> help')))).toEqual(['triggers/deploys-posted', 'triggers/deploys-top-level', 'triggers/triage-mentioned']);
  });

  it('a delivery the platform retries, and the message and app_mention events of one message, start one session', async () => {
    const body = message('<@U0TRIAGE> retry me', { channel: 'C101' });
    const first = await deliver(body);
    const retried = await deliver(body, { headers: { 'x-slack-retry-num': '1' } });
    const mention = await deliver({ ...body, event_id: 'EvOther', event: { ...body.event, type: 'app_mention' } });
    expect(fired(first)).toEqual(['triggers/triage-mentioned']);
    expect(retried.body.dispatched[0].session).toBe(first.body.dispatched[0].session);
    expect(mention.body.dispatched[0].session).toBe(first.body.dispatched[0].session);
    const sessions = (await stack.rpc<{ sessions: Session[] }>(`${A}/ListSessions`, { parent: 'agents/triager', page_size: 1000 })).body.sessions;
    expect(sessions.filter((s) => s.name === first.body.dispatched[0].session)).toHaveLength(1);
  });

  it('ignores the bot’s own posts, bot messages, edits and deletions', async () => {
    expect(fired(await deliver(message('from the bot', { bot_id: 'B1' })))).toEqual([]);
    expect(fired(await deliver(message('from a bot', { subtype: 'bot_message', bot_id: 'B2' })))).toEqual([]);
    expect(fired(await deliver(message('an integration', { subtype: 'bot_message' })))).toEqual([]);
    expect(fired(await deliver(message('edited', { subtype: 'message_changed' })))).toEqual([]);
    expect(fired(await deliver(message('', { subtype: 'message_deleted' })))).toEqual([]);
    expect(fired(await deliver(message('joined', { subtype: 'channel_join' })))).toEqual([]);
  });

  it('ordinary message subtypes fire: a file share, a /me message, and a thread reply also sent to the channel', async () => {
    expect(fired(await deliver(message('the log', { subtype: 'file_share', files: [{ id: 'F1' }] })))).toEqual(['triggers/deploys-posted', 'triggers/deploys-top-level']);
    expect(fired(await deliver(message('is deploying', { subtype: 'me_message' })))).toEqual(['triggers/deploys-posted', 'triggers/deploys-top-level']);
    // A broadcast reply is in the channel too, so it fires the trigger that skips thread replies; the session answers in its thread.
    const broadcast = await deliver(message('also in channel', { subtype: 'thread_broadcast', thread_ts: '1690000000.000009' }));
    expect(fired(broadcast)).toEqual(['triggers/deploys-posted', 'triggers/deploys-top-level']);
    expect((await session(broadcast.body.dispatched[0].session ?? '')).origin?.chat?.threadTs).toBe('1690000000.000009');
  });

  it('a message does not start an agent that is off: the trigger reports and records the skip', async () => {
    expect((await stack.rpc(`${A}/CreateAgent`, { agent_id: 'sleeper', agent: { state: 'AGENT_STATE_OFF' } })).status).toBe(200);
    expect((await stack.rpc(`${T}/CreateTrigger`, { trigger_id: 'random-asleep', trigger: { agent: 'agents/sleeper', configuration: { chat_message_posted: { chat_connection: 'connections/chatops', channels: ['#random'] } } } })).status).toBe(200);
    const res = await deliver(message('anyone there?', { channel: 'C103' }));
    expect(res.body.dispatched).toEqual([
      { trigger: 'triggers/random-asleep', error: { status: 'FAILED_PRECONDITION', message: expect.stringMatching(/agents\/sleeper is AGENT_STATE_OFF/) } },
    ]);
    expect((await stack.rpc<{ sessions: Session[] }>(`${A}/ListSessions`, { parent: 'agents/sleeper' })).body.sessions).toEqual([]);
    const store = createEventStore({ SVC_DATA_DIR: stack.dataDir });
    try {
      const events = await store.readStream('triggerfire-acme:triggers/random-asleep');
      expect(events.map((e) => [e.type, (e.data as { source: string }).source, (e.data as { reason: string }).reason])).toEqual([['TriggerOccasionSkipped', 'chat', 'AGENT_STATE_OFF']]);
    } finally {
      await store.close();
    }
  });

  describe('InvokeTrigger with machine credentials (the integrations server dispatching)', () => {
    const invoke = (body: Record<string, unknown>, as: Credentials = MACHINE) => stack.rpc<{ trigger: { name: string }; session: string }>(`${T}/InvokeTrigger`, body, as);
    const chat = { team_id: 'T002', channel_name: 'Deploys', event_ts: '1700100000.000100', user_id: 'U42', text: 'ship it' };
    const expectError = (res: { status: number; body: unknown }, status: string, message: RegExp) =>
      expect(res.body).toMatchObject({ error: { status, message: expect.stringMatching(message) } });

    it('starts a session in the workspace’s organization, as the agent service identity, with the channel resolved', async () => {
      const res = await invoke({ name: 'triggers/deploys-posted', chat });
      expect(res.status).toBe(200);
      expect(res.body.trigger.name).toBe('triggers/deploys-posted');
      const started = await session(res.body.session);
      expect(started.name).toMatch(/^agents\/bot\/sessions\//);
      expect(started.origin?.chat).toMatchObject({ chatConnection: 'connections/chatops', teamId: 'T002', channelName: '#deploys', channelId: 'C102', threadTs: chat.event_ts, text: 'ship it' });
      // The same message delivered through the webhook (or invoked again) finds that session.
      const delivered = await deliver({ type: 'event_callback', team_id: 'T002', event: { type: 'message', channel: 'C102', user: 'U42', text: 'ship it', ts: chat.event_ts } });
      expect(delivered.body.dispatched.find((d) => d.trigger === 'triggers/deploys-posted')?.session).toBe(res.body.session);
      expect((await invoke({ name: 'triggers/deploys-posted', chat })).body.session).toBe(res.body.session);
    });

    it('is judged by the spec’s table, in order', async () => {
      expect((await stack.rpc(`${T}/CreateTrigger`, { trigger_id: 'by-hand', trigger: { agent: 'agents/bot', configuration: { manual: {} } } })).status).toBe(200);
      // Row 1 before every other: a non-chat trigger, whatever else is wrong.
      expectError(await invoke({ name: 'triggers/by-hand', chat: { team_id: 'T002', chat_connection: 'connections/warehouse' } }), 'INVALID_ARGUMENT', /only by chat_message_posted and chat_agent_mentioned/);
      // Row 2 before row 3: another connection, with no channel either.
      expectError(await invoke({ name: 'triggers/deploys-posted', chat: { team_id: 'T002', chat_connection: 'connections/other' } }), 'PERMISSION_DENIED', /is not the connection of trigger/);
      expectError(await invoke({ name: 'triggers/deploys-posted', chat: { team_id: 'T002' } }), 'INVALID_ARGUMENT', /channel_name is required/);
      expectError(await invoke({ name: 'triggers/deploys-posted', chat: { ...chat, channel_name: '#ops' } }), 'PERMISSION_DENIED', /'#ops' is not one of the channels/);
      expectError(await invoke({ name: 'triggers/triage-mentioned', chat: { ...chat, channel_name: 'general' } }), 'NOT_FOUND', /'#general' is not among the channels the bot/);
    });

    it('needs the workspace, may send only the chat arm, and opens nothing else; members stay refused', async () => {
      expectError(await invoke({ name: 'triggers/deploys-posted', chat: { channel_name: '#deploys' } }), 'INVALID_ARGUMENT', /team_id is required with machine credentials/);
      expectError(await invoke({ name: 'triggers/deploys-posted', chat: { ...chat, team_id: 'T404' } }), 'NOT_FOUND', /no chat connection belongs to workspace 'T404'/);
      expectError(await invoke({ name: 'triggers/deploys-posted', message: 'hello' }), 'PERMISSION_DENIED', /machine credentials may send only the chat arm/);
      expect((await invoke({ name: 'triggers/deploys-posted', chat }, { username: 'integrations', password: 'wrong' })).status).toBe(401);
      expectError(await invoke({ name: 'triggers/deploys-posted', chat }, ALICE), 'PERMISSION_DENIED', /chat is the internal arm of InvokeTrigger/);
      expect((await stack.rpc(`${T}/GetTrigger`, { name: 'triggers/deploys-posted' }, MACHINE)).status).toBe(401);
    });
  });
});
