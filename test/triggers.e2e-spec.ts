import { ALICE, BOB, GINA, Stack, TEST_CONFIG_WITH_CHATOPS } from './support/harness';

const T = 'svc.triggers.v1.TriggersService';
const A = 'svc.nxagent.v2.AgentService';
const TYPE = 'type.googleapis.com/svc.nxagent.v1.Activity';

interface Trigger {
  name: string;
  displayName?: string;
  description?: string;
  agent: string;
  configuration: Record<string, Record<string, unknown>>;
  enabled: boolean;
  associatedResources?: string[];
  createTime: string;
  updateTime: string;
  deleteTime?: string;
}
interface Invoked {
  trigger: Trigger;
  session: string;
}
interface Session {
  name: string;
  associatedResources?: string[];
  origin?: { trigger: string; idempotencyKey?: string; chat?: Record<string, string> };
}

const CRON = { cron: { schedule: '0 9 * * 1-5', timezone: 'Europe/Paris' } };
const ROW = { row: { table_name: 'orders', predicate: "status = 'failed' AND amount > 100", cooldown: '300s' } };
const POST_DEPLOY = { post_deploy: { repository: 'acme/shop', environment: 'production', sha: 'abc1234', delay: '600s' } };
const POSTED = { chat_message_posted: { chat_connection: 'connections/chatops', channels: ['#deploys'] } };
const MENTIONED = { chat_agent_mentioned: { chat_handle: 'connections/chatops/chat-handles/triage', channels: [] } };

describe('triggers (svc.triggers.v1.TriggersService)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start({ config: TEST_CONFIG_WITH_CHATOPS });
    for (const id of ['watcher', 'helper']) {
      expect((await stack.rpc(`${A}/CreateAgent`, { agent_id: id, agent: { title: id } })).status).toBe(200);
    }
  });
  afterAll(async () => {
    await stack.destroy();
  });

  const create = (trigger_id: string | undefined, trigger: Record<string, unknown>, as = ALICE) =>
    stack.rpc<{ trigger: Trigger }>(`${T}/CreateTrigger`, { ...(trigger_id ? { trigger_id } : {}), trigger }, as);
  const invoke = (body: Record<string, unknown>, as = ALICE) => stack.rpc<Invoked>(`${T}/InvokeTrigger`, body, as);
  const expectError = (res: { status: number; body: unknown }, status: string, message: RegExp) => {
    expect(res.body).toMatchObject({ error: { status, message: expect.stringMatching(message) } });
    expect(res.status).toBe(status === 'INVALID_ARGUMENT' ? 400 : status === 'PERMISSION_DENIED' ? 403 : status === 'NOT_FOUND' ? 404 : 409);
  };
  const names = async (body: Record<string, unknown>) =>
    (await stack.rpc<{ triggers: Trigger[] }>(`${T}/ListTriggers`, body)).body.triggers.map((t) => t.name);
  const sessionsOf = async (agent: string) =>
    (await stack.rpc<{ sessions: Session[] }>(`${A}/ListSessions`, { parent: agent, page_size: 1000 })).body.sessions;

  it('CreateTrigger stores each variant with the spec defaults; Get answers it; an omitted trigger_id is generated', async () => {
    const res = await create('nightly', { display_name: 'Nightly', agent: 'agents/watcher', configuration: { cron: { schedule: '0 2 * * *' } }, associated_resources: ['services/checkout'] });
    expect(res.status).toBe(200);
    expect(res.body.trigger).toMatchObject({
      name: 'triggers/nightly',
      displayName: 'Nightly',
      agent: 'agents/watcher',
      enabled: true,
      configuration: { cron: { schedule: '0 2 * * *', timezone: 'UTC' } },
      associatedResources: ['services/checkout'],
    });
    const posted = await create('deploy-chat', { display_name: 'Deploy chat', agent: 'agents/watcher', configuration: POSTED });
    expect(posted.body.trigger.configuration).toEqual({ chatMessagePosted: { chatConnection: 'connections/chatops', channels: ['#deploys'], includeThreadReplies: true } });
    for (const [id, configuration] of [['rows', ROW], ['after-deploy', POST_DEPLOY], ['triage-mention', MENTIONED], ['by-hand', { manual: {} }]] as const) {
      expect((await create(id, { display_name: id, agent: 'agents/helper', configuration, enabled: id !== 'rows' })).status).toBe(200);
    }
    expect((await stack.rpc<{ trigger: Trigger }>(`${T}/GetTrigger`, { name: 'triggers/rows' })).body.trigger).toMatchObject({
      enabled: false,
      configuration: { row: { tableName: 'orders', predicate: "status = 'failed' AND amount > 100", cooldown: '300s' } },
    });
    const generated = await create(undefined, { agent: 'agents/watcher', configuration: { manual: {} } });
    expect(generated.body.trigger.name).toMatch(/^triggers\/[0-9a-f-]{36}$/);
    expectError(await create('nightly', { agent: 'agents/watcher', configuration: { manual: {} } }), 'ALREADY_EXISTS', /already exists/);
  });

  it('an omitted delay or cooldown is 0s; channel names are normalized as the chat invoke context normalizes them', async () => {
    const row = await create('rows-no-cooldown', { agent: 'agents/watcher', configuration: { row: { table_name: 'orders', predicate: 'amount > 1' } } });
    expect(row.status).toBe(200);
    expect(row.body.trigger.configuration).toEqual({ row: { tableName: 'orders', predicate: 'amount > 1', cooldown: '0s' } });
    const deploy = await create('deploy-no-delay', { agent: 'agents/watcher', configuration: { post_deploy: { repository: 'acme/shop', environment: 'production', sha: 'abc1234' } } });
    expect(deploy.status).toBe(200);
    expect(deploy.body.trigger.configuration).toEqual({ postDeploy: { repository: 'acme/shop', environment: 'production', sha: 'abc1234', delay: '0s' } });
    const posted = await create('ops-chat', { agent: 'agents/watcher', configuration: { chat_message_posted: { chat_connection: 'connections/chatops', channels: ['ops', '#Deploys'] } } });
    expect(posted.status).toBe(200);
    expect(posted.body.trigger.configuration).toEqual({ chatMessagePosted: { chatConnection: 'connections/chatops', channels: ['#ops', '#deploys'], includeThreadReplies: true } });
    const mentioned = await create('ops-mention', { agent: 'agents/watcher', configuration: { chat_agent_mentioned: { chat_handle: 'connections/chatops/chat-handles/triage', channels: ['OPS'] } } });
    expect(mentioned.body.trigger.configuration).toEqual({ chatAgentMentioned: { chatHandle: 'connections/chatops/chat-handles/triage', channels: ['#ops'] } });
    for (const id of ['rows-no-cooldown', 'deploy-no-delay', 'ops-chat', 'ops-mention']) expect((await stack.rpc(`${T}/DeleteTrigger`, { name: `triggers/${id}` })).status).toBe(200);
  });

  it('the agent must exist; configuration must hold exactly one known variant', async () => {
    expectError(await create('x1', { agent: 'agents/nobody', configuration: { manual: {} } }), 'INVALID_ARGUMENT', /agents\/nobody.*does not exist/);
    expectError(await create('x2', { configuration: { manual: {} } }), 'INVALID_ARGUMENT', /^agent is required/);
    expectError(await create('x3', { agent: 'agents/watcher' }), 'INVALID_ARGUMENT', /^configuration is required/);
    expectError(await create('x4', { agent: 'agents/watcher', configuration: { manual: {}, ...CRON } }), 'INVALID_ARGUMENT', /exactly one of/);
    expectError(await create('x5', { agent: 'agents/watcher', configuration: { webhook: {} } }), 'INVALID_ARGUMENT', /configuration\.webhook is not a trigger variant/);
    expectError(await create('x6', { agent: 'agents/watcher', configuration: { manual: { note: 'x' } } }), 'INVALID_ARGUMENT', /configuration\.manual takes no fields/);
  });

  it.each([
    ['a malformed cron schedule', { cron: { schedule: '61 * * * *', timezone: 'UTC' } }, /^configuration\.cron\.schedule is not a valid cron expression/],
    ['an unknown time zone', { cron: { schedule: '0 * * * *', timezone: 'Mars/Olympus' } }, /^configuration\.cron\.timezone must be an IANA time zone/],
    ['a row without a table', { row: { predicate: 'a = 1', cooldown: '1s' } }, /^configuration\.row\.table_name is required/],
    ['a predicate that is not boolean', { row: { table_name: 't', predicate: '1 + 1', cooldown: '1s' } }, /^configuration\.row\.predicate must be a boolean expression/],
    ['a predicate with a second statement', { row: { table_name: 't', predicate: 'a = 1; DROP TABLE t', cooldown: '1s' } }, /^configuration\.row\.predicate must be a single boolean expression/],
    ['a predicate calling a function', { row: { table_name: 't', predicate: 'lower(a) = 1', cooldown: '1s' } }, /^configuration\.row\.predicate may use only columns/],
    ['a predicate that does not parse', { row: { table_name: 't', predicate: 'a = = 1', cooldown: '1s' } }, /^configuration\.row\.predicate is not a valid SQL expression/],
    ['a cooldown without the s suffix', { row: { table_name: 't', predicate: 'a = 1', cooldown: '5m' } }, /^configuration\.row\.cooldown must be a duration in decimal seconds/],
    ['a repository that is not owner/repo', { post_deploy: { ...POST_DEPLOY.post_deploy, repository: 'shop' } }, /^configuration\.post_deploy\.repository must be 'owner\/repo'/],
    ['a sha that is not hexadecimal', { post_deploy: { ...POST_DEPLOY.post_deploy, sha: 'main' } }, /^configuration\.post_deploy\.sha must be a commit sha/],
    ['a delay over the limit', { post_deploy: { ...POST_DEPLOY.post_deploy, delay: '9999999s' } }, /^configuration\.post_deploy\.delay is longer than the limit/],
    ['a missing environment', { post_deploy: { ...POST_DEPLOY.post_deploy, environment: '' } }, /^configuration\.post_deploy\.environment is required/],
    ['a connection that is not a chat one', { chat_message_posted: { chat_connection: 'connections/warehouse', channels: ['#ops'] } }, /^configuration\.chat_message_posted\.chat_connection must name a chat connection/],
    ['a connection that does not exist', { chat_message_posted: { chat_connection: 'connections/nope', channels: ['#ops'] } }, /connections\/nope.*does not exist/],
    ['no channels', { chat_message_posted: { chat_connection: 'connections/chatops', channels: [] } }, /^configuration\.chat_message_posted\.channels must list at least one channel/],
    ['a channel that is no channel name', { chat_message_posted: { chat_connection: 'connections/chatops', channels: ['ops team'] } }, /^configuration\.chat_message_posted\.channels\[0\] must be a '#name' channel/],
    ['a channel listed twice once normalized', { chat_message_posted: { chat_connection: 'connections/chatops', channels: ['ops', '#Ops'] } }, /^configuration\.chat_message_posted\.channels\[1\]: '#ops' is listed twice/],
    ['a channel the bot is not in', { chat_message_posted: { chat_connection: 'connections/chatops', channels: ['#ops', '#general'] } }, /^configuration\.chat_message_posted\.channels\[1\]: the bot of connections\/chatops is not a member of '#general'/],
    ['include_thread_replies not a boolean', { chat_message_posted: { ...POSTED.chat_message_posted, include_thread_replies: 'yes' } }, /^configuration\.chat_message_posted\.include_thread_replies must be a boolean/],
    ['a malformed chat handle', { chat_agent_mentioned: { chat_handle: 'handles/triage' } }, /^configuration\.chat_agent_mentioned\.chat_handle must look like 'connections\/\{connection\}\/chat-handles\/\{handle\}'/],
    ['an unknown chat handle', { chat_agent_mentioned: { chat_handle: 'connections/chatops/chat-handles/ghost' } }, /^configuration\.chat_agent_mentioned\.chat_handle refers to .*ghost', which does not exist/],
  ])('CreateTrigger refuses %s, naming the field', async (_label, configuration, message) => {
    const res = await create('refused', { agent: 'agents/watcher', configuration });
    expectError(res, 'INVALID_ARGUMENT', message);
    expectError(await stack.rpc(`${T}/GetTrigger`, { name: 'triggers/refused' }), 'NOT_FOUND', /not found/);
  });

  it('UpdateTrigger applies the mask and judges the configuration it stores; writes need AGENTS_WRITE', async () => {
    const res = await stack.rpc<{ trigger: Trigger }>(`${T}/UpdateTrigger`, {
      trigger: { name: 'triggers/nightly', display_name: 'Nightly run', enabled: false, description: 'ignored' },
      update_mask: 'display_name,enabled',
    });
    expect(res.status).toBe(200);
    expect(res.body.trigger).toMatchObject({ displayName: 'Nightly run', enabled: false });
    expect(res.body.trigger.description).toBeUndefined();
    const bad = await stack.rpc(`${T}/UpdateTrigger`, { trigger: { name: 'triggers/nightly', configuration: { cron: { schedule: 'every day' } } }, update_mask: 'configuration' });
    expectError(bad, 'INVALID_ARGUMENT', /^configuration\.cron\.schedule/);
    const switched = await stack.rpc<{ trigger: Trigger }>(`${T}/UpdateTrigger`, { trigger: { name: 'triggers/by-hand', configuration: CRON }, update_mask: 'configuration' });
    expect(switched.body.trigger.configuration).toEqual({ cron: { schedule: '0 9 * * 1-5', timezone: 'Europe/Paris' } });
    expectError(await create('bobs', { agent: 'agents/watcher', configuration: { manual: {} } }, BOB), 'PERMISSION_DENIED', /AGENTS_WRITE/);
  });

  it('ListTriggers filters on enabled, agent and associated_resources and orders by display_name; DeleteTrigger hides a trigger from List only', async () => {
    expect(await names({ filter: "agent = 'agents/helper'", order_by: 'display_name' })).toEqual([
      'triggers/after-deploy',
      'triggers/by-hand',
      'triggers/rows',
      'triggers/triage-mention',
    ]);
    expect(await names({ filter: "agent = 'agents/helper' AND enabled = true", order_by: 'display_name desc' })).toEqual([
      'triggers/triage-mention',
      'triggers/by-hand',
      'triggers/after-deploy',
    ]);
    expect(await names({ filter: "associated_resources:'services/checkout'" })).toEqual(['triggers/nightly']);
    expect((await stack.rpc(`${T}/DeleteTrigger`, { name: 'triggers/after-deploy' })).status).toBe(200);
    expect((await stack.rpc<{ trigger: Trigger }>(`${T}/GetTrigger`, { name: 'triggers/after-deploy' })).body.trigger.deleteTime).toEqual(expect.any(String));
    expect(await names({ filter: "agent = 'agents/helper'", order_by: 'create_time' })).toEqual(['triggers/rows', 'triggers/triage-mention', 'triggers/by-hand']);
    expect(await names({ filter: "agent = 'agents/helper'", order_by: 'create_time', show_deleted: true })).toEqual([
      'triggers/rows',
      'triggers/after-deploy',
      'triggers/triage-mention',
      'triggers/by-hand',
    ]);
    expect((await stack.rpc<{ triggers: Trigger[] }>(`${T}/ListTriggers`, {}, GINA)).body.triggers).toEqual([]);
  });

  it('InvokeTrigger starts a session of the agent at once, even for a disabled cron trigger; the message is its seed', async () => {
    const res = await invoke({ name: 'triggers/nightly', message: 'Run the nightly checks' });
    expect(res.status).toBe(200);
    expect(res.body.trigger).toMatchObject({ name: 'triggers/nightly', enabled: false });
    expect(res.body.session).toMatch(/^agents\/watcher\/sessions\/[0-9a-f-]{36}$/);
    const read = await stack.rpc<{ messages: unknown[] }>(`${A}/Read`, { session: res.body.session });
    expect(read.body.messages[0]).toEqual({ '@type': TYPE, user: { text: { text: 'Run the nightly checks' } } });
    const session = await stack.rpc<{ session: Session }>(`${A}/GetSession`, { name: res.body.session });
    expect(session.body.session).toMatchObject({ associatedResources: ['triggers/nightly'], origin: { trigger: 'triggers/nightly' } });
    const again = await invoke({ name: 'triggers/nightly', message: 'Run the nightly checks' });
    expect(again.body.session).not.toBe(res.body.session);
  });

  it('InvokeTrigger takes exactly one of message and chat, and refuses a deleted or missing trigger', async () => {
    expectError(await invoke({ name: 'triggers/nightly' }), 'INVALID_ARGUMENT', /exactly one of message and chat/);
    expectError(await invoke({ name: 'triggers/nightly', message: 'x', chat: { channel_name: '#ops' } }), 'INVALID_ARGUMENT', /exactly one of message and chat/);
    expectError(await invoke({ name: 'triggers/after-deploy', message: 'x' }), 'NOT_FOUND', /not found/);
    expectError(await invoke({ name: 'triggers/nope', message: 'x' }), 'NOT_FOUND', /not found/);
    expectError(await invoke({ name: 'triggers/nightly', message: 'x' }, BOB), 'PERMISSION_DENIED', /AGENTS_WRITE/);
  });

  it('an idempotency_key returns the recent session whose seed carries it; concurrent invokes with one key create one session', async () => {
    const before = (await sessionsOf('agents/helper')).length;
    const first = await invoke({ name: 'triggers/rows', message: 'row matched', idempotency_key: 'order-17' });
    expect(first.status).toBe(200);
    const second = await invoke({ name: 'triggers/rows', message: 'row matched again', idempotency_key: 'order-17' });
    expect(second.body.session).toBe(first.body.session);
    const session = await stack.rpc<{ session: Session }>(`${A}/GetSession`, { name: first.body.session });
    expect(session.body.session.origin).toEqual({ trigger: 'triggers/rows', idempotencyKey: 'order-17' });
    const other = await invoke({ name: 'triggers/rows', message: 'row matched', idempotency_key: 'order-18' });
    expect(other.body.session).not.toBe(first.body.session);

    const concurrent = await Promise.all(Array.from({ length: 6 }, () => invoke({ name: 'triggers/rows', message: 'burst', idempotency_key: 'burst-1' })));
    expect(concurrent.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(concurrent.map((r) => r.body.session)).size).toBe(1);
    expect((await sessionsOf('agents/helper')).length).toBe(before + 3);
  });

  it('the chat arm is internal: external callers may not populate it, and nothing starts', async () => {
    // The spec: "Produced only by the server-internal chat event dispatcher after a verified chat
    // webhook ... External callers must not populate it." The dispatcher's path, which judges the arm
    // row by row (libs/domain/src/triggers/invocation.spec.ts) and stamps the resolved channel id, is
    // proven through the webhook in test/chat-webhook.e2e-spec.ts.
    const chat = { chat_connection: 'connections/chatops', channel_name: 'deploys', event_ts: '1700000000.000100', user_id: 'U1', text: 'ship it' };
    const count = async () => (await sessionsOf('agents/helper')).length + (await sessionsOf('agents/watcher')).length;
    const before = await count();
    for (const name of ['triggers/deploy-chat', 'triggers/triage-mention', 'triggers/nightly']) {
      expectError(await invoke({ name, chat }), 'PERMISSION_DENIED', /chat is the internal arm of InvokeTrigger/);
    }
    expect(await count()).toBe(before);
  });
});
