import { ALICE, BOB, GINA, Stack } from './support/harness';

const S = 'svc.nxagent.v2.AgentService';
const HOST = 'type.googleapis.com';
const ACTIVITY = `${HOST}/svc.nxagent.v1.Activity`;
const user = (text: string) => ({ '@type': ACTIVITY, user: { text: { text } } });
const str = (value: string) => ({ '@type': `${HOST}/google.protobuf.StringValue`, value });
const int = (value: string) => ({ '@type': `${HOST}/google.protobuf.Int64Value`, value });

interface Session {
  name: string;
  title?: string;
  associatedResources?: string[];
  incognito?: boolean;
  dryRun?: boolean;
  mockTime?: string;
  createTime: string;
  updateTime: string;
  deleteTime?: string;
}
interface Description {
  session: Session;
  status: string;
  sessionLength: number;
  lastMessage?: string;
}
interface ReadAnswer {
  session: string;
  sessionOffset: number;
  sessionLength: number;
  messages: unknown[];
  status: string;
}

describe('sessions (svc.nxagent.v2.AgentService: session methods)', () => {
  let stack: Stack;
  const rpc = <T = Record<string, unknown>>(method: string, body: unknown, as = ALICE) => stack.rpc<T>(`${S}/${method}`, body, as);
  const create = (body: Record<string, unknown>, as = ALICE) => rpc<{ session: Session }>('CreateSession', { parent: 'agents/triage', ...body }, as);
  const expectError = (res: { status: number; body: unknown }, status: string, message: RegExp) => {
    expect(res.body).toMatchObject({ error: { status, message: expect.stringMatching(message) } });
  };
  const listNames = async (body: Record<string, unknown>, as = ALICE) =>
    (await rpc<{ sessions: Session[] }>('ListSessions', body, as)).body.sessions.map((s) => s.name);

  beforeAll(async () => {
    // The write side alone: with no runtime answering, a checkpoint-written session stays
    // STATUS_EXECUTING, so these tests see what Write records (test/agent-runtime.e2e-spec.ts covers
    // the runtime's answer).
    stack = await Stack.start({ env: { SVC_AGENT_RUNTIME: 'off' } });
    const agent = {
      title: 'Triage',
      entry_inputs: [
        { name: 'service_name', type: 'STRING', required: true },
        { name: 'window', type: 'INT64', repeated: true },
      ],
    };
    expect((await rpc('CreateAgent', { agent_id: 'triage', agent })).status).toBe(200);
    expect((await rpc('CreateAgent', { agent_id: 'other', agent: {} })).status).toBe(200);
    expect((await rpc('CreateAgent', { agent_id: 'gone', agent: {} })).status).toBe(200);
    expect((await rpc('DeleteAgent', { name: 'agents/gone' })).status).toBe(200);
    expect((await rpc('CreateAgent', { agent_id: 'triage', agent: {} }, GINA)).status).toBe(200);
  });
  afterAll(async () => {
    await stack.destroy();
  });

  it('CreateSession stores its settings, generates a UUID when session_id is omitted, and needs a live parent agent', async () => {
    const res = await create({ session_id: 's1', title: 'First', automated: true, associated_resources: ['deployments/d1'], compat_provider: 'openai', compat_model: 'gpt', compat_reasoning_effort: 'low' });
    expect(res.status).toBe(200);
    expect(res.body.session).toMatchObject({ name: 'agents/triage/sessions/s1', title: 'First', automated: true, associatedResources: ['deployments/d1'], compatReasoningEffort: 'low' });
    expect(res.body.session).not.toHaveProperty('_status');
    const generated = await create({});
    expect(generated.body.session.name).toMatch(/^agents\/triage\/sessions\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expectError(await create({ parent: 'agents/missing' }), 'NOT_FOUND', /agent 'agents\/missing' not found/);
    expectError(await create({ parent: 'agents/gone' }), 'NOT_FOUND', /agents\/gone/);
    expectError(await create({ session_id: 's1' }), 'ALREADY_EXISTS', /s1/);
    expect((await rpc<{ session: Session }>('GetSession', { name: 'agents/triage/sessions/s1' })).body.session.title).toBe('First');
  });

  it('CreateSession rules: compat pair, reasoning effort, NXL-only prelude and inputs', async () => {
    expectError(await create({ compat_provider: 'openai' }), 'INVALID_ARGUMENT', /compat_model is required/);
    expectError(await create({ compat_model: 'x', compat_reasoning_effort: 'extreme' }), 'INVALID_ARGUMENT', /compat_reasoning_effort must be one of low, medium, high/);
    expectError(await create({ bash_prelude: 'set -e' }), 'INVALID_ARGUMENT', /bash_prelude is only allowed with runtime SESSION_RUNTIME_NXL/);
    expectError(await create({ inputs: { service_name: str('checkout') } }), 'INVALID_ARGUMENT', /inputs are only allowed/);
    const ok = await create({ session_id: 'nxl', runtime: 'SESSION_RUNTIME_NXL', bash_prelude: 'set -e', inputs: { service_name: str('checkout'), window: { '@type': `${HOST}/svc.nxagent.v2.AnyList`, items: [int('5'), int('10')] } } });
    expect(ok.status).toBe(200);
    expect(ok.body.session).toMatchObject({ inputs: { service_name: str('checkout') }, bashPrelude: 'set -e' });
  });

  it('CreateSession validates inputs against the agent\'s declared entry inputs, naming the input', async () => {
    const badDeclaration = await rpc('CreateAgent', { agent_id: 'bad', agent: { entry_inputs: [{ name: 'x', type: 'FLOAT' }] } });
    expectError(badDeclaration, 'INVALID_ARGUMENT', /entry_inputs\[0\]\.type must be one of STRING, INT64, DOUBLE, BOOL/);
    const nxl = (inputs: Record<string, unknown>) => create({ runtime: 'SESSION_RUNTIME_NXL', inputs });
    expectError(await nxl({ service_name: int('3') }), 'INVALID_ARGUMENT', /inputs\.service_name must be an Any of @type 'type.googleapis.com\/google.protobuf.StringValue'/);
    expectError(await nxl({ service_name: str('a'), window: int('3') }), 'INVALID_ARGUMENT', /inputs\.window must be an Any of @type '.*AnyList'/);
    expectError(await nxl({ service_name: str('a'), window: { '@type': `${HOST}/svc.nxagent.v2.AnyList`, items: [str('x')] } }), 'INVALID_ARGUMENT', /inputs\.window/);
    expectError(await nxl({ service_name: str('a'), region: str('eu') }), 'INVALID_ARGUMENT', /inputs\.region: agents\/triage declares no entry input 'region'/);
    expectError(await nxl({}), 'INVALID_ARGUMENT', /inputs\.service_name is required/);
  });

  it('initial_messages are written on creation in order; Read answers them from an offset', async () => {
    const res = await create({ session_id: 'hist', initial_messages: [user('one'), user('two'), user('three')] });
    expect(res.status).toBe(200);
    const all = await rpc<ReadAnswer>('Read', { session: 'agents/triage/sessions/hist' });
    expect(all.body).toEqual({ session: 'agents/triage/sessions/hist', sessionOffset: 0, sessionLength: 3, messages: [user('one'), user('two'), user('three')], status: 'STATUS_WAITING' });
    const tail = await rpc<ReadAnswer>('Read', { session: 'agents/triage/sessions/hist', session_offset: 2 });
    expect(tail.body).toMatchObject({ sessionOffset: 2, sessionLength: 3, messages: [user('three')] });
    expect((await rpc<ReadAnswer>('Read', { session: 'agents/triage/sessions/hist', session_offset: 3 })).body.messages).toEqual([]);
    expectError(await rpc('Read', { session: 'agents/triage/sessions/hist', session_offset: 4 }), 'OUT_OF_RANGE', /past the end/);
    expectError(await create({ initial_messages: [user('ok'), { '@type': ACTIVITY }] }), 'INVALID_ARGUMENT', /initial_messages\[1\]/);
  });

  it('Write: checkpoint starts processing (STATUS_EXECUTING), provisional queues, answers session and sessionLength', async () => {
    await create({ session_id: 'w' });
    const name = 'agents/triage/sessions/w';
    const provisional = await rpc('Write', { session: name, messages: [user('queued')], write_mode: 'WRITE_MODE_PROVISIONAL' });
    expect(provisional.body).toEqual({ session: name, sessionLength: 1 });
    expect((await rpc<ReadAnswer>('Read', { session: name })).body.status).toBe('STATUS_WAITING');
    const checkpoint = await rpc('Write', { session: name, messages: [user('go'), user('now')] });
    expect(checkpoint.body).toEqual({ session: name, sessionLength: 3 });
    const read = await rpc<ReadAnswer>('Read', { session: name, session_offset: 1 });
    expect(read.body).toMatchObject({ status: 'STATUS_EXECUTING', sessionLength: 3, messages: [user('go'), user('now')] });
    // PROVISIONAL_OR_CHECKPOINT while the agent runs is provisional: still one session, still executing.
    expect((await rpc('Write', { session: name, messages: [user('more')], write_mode: 'WRITE_MODE_PROVISIONAL_OR_CHECKPOINT' })).body).toEqual({ session: name, sessionLength: 4 });
  });

  it('Write with parent creates a session and writes in one call; PROVISIONAL_OR_CHECKPOINT on an idle session is a checkpoint', async () => {
    const res = await rpc<{ session: string; sessionLength: number }>('Write', { parent: 'agents/triage', messages: [user('hello')], write_mode: 'WRITE_MODE_PROVISIONAL_OR_CHECKPOINT' });
    expect(res.status).toBe(200);
    expect(res.body.sessionLength).toBe(1);
    expect(res.body.session).toMatch(/^agents\/triage\/sessions\/[0-9a-f-]{36}$/);
    expect((await rpc<ReadAnswer>('Read', { session: res.body.session })).body.status).toBe('STATUS_EXECUTING');
  });

  it('Write with session set writes to that session whatever parent says (Write rule 1)', async () => {
    await create({ session_id: 'both' });
    const name = 'agents/triage/sessions/both';
    const res = await rpc('Write', { session: name, parent: 'agents/other', messages: [user('to the session')] });
    expect(res.body).toEqual({ session: name, sessionLength: 1 });
    expect((await rpc<ReadAnswer>('Read', { session: name })).body.messages).toEqual([user('to the session')]);
    expect(await listNames({ parent: 'agents/other' })).toEqual([]);
  });

  it('Write rules: a target, non-empty messages, each an Activity with exactly one variant', async () => {
    const name = 'agents/triage/sessions/s1';
    expectError(await rpc('Write', { messages: [user('x')] }), 'INVALID_ARGUMENT', /either session or parent must be set/);
    expectError(await rpc('Write', { session: '', parent: '', messages: [user('x')] }), 'INVALID_ARGUMENT', /either session or parent must be set/);
    expectError(await rpc('Write', { session: name, messages: [] }), 'INVALID_ARGUMENT', /messages must not be empty/);
    expectError(await rpc('Write', { session: name, messages: [user('x'), { '@type': 'example.com/svc.nxagent.v1.Activity', user: { text: { text: 'x' } } }] }), 'INVALID_ARGUMENT', /messages\[1\] must have @type/);
    const both = { '@type': ACTIVITY, user: { text: { text: 'a' } }, assistant: { text: { text: 'b' } } };
    expectError(await rpc('Write', { session: name, messages: [both] }), 'INVALID_ARGUMENT', /messages\[0\] must set exactly one of/);
    expectError(await rpc('Write', { session: name, messages: [user('a'), user('b'), { '@type': ACTIVITY, user: { text: { text: 'a' }, toolResults: [] } }] }), 'INVALID_ARGUMENT', /messages\[2\]/);
    expectError(await rpc('Write', { session: name, messages: [{ '@type': ACTIVITY, assistant: { toolCalls: [{ id: 'c1', name: 'q' }] } }] }), 'INVALID_ARGUMENT', /messages\[0\]: assistant.toolCalls \[0\]\.arguments must be a string/);
    const ok = [
      { '@type': ACTIVITY, assistant: { toolCalls: [{ id: 'c1', name: 'q', arguments: '{}' }] } },
      { '@type': ACTIVITY, user: { toolResults: [{ toolCallId: 'c1', content: '{"rows":1}' }] } },
      { '@type': ACTIVITY, assistant: { text: { text: 'done' } } },
    ];
    expect((await rpc('Write', { session: name, messages: ok, write_mode: 'WRITE_MODE_PROVISIONAL' })).body).toEqual({ session: name, sessionLength: 3 });
    expect((await rpc<ReadAnswer>('Read', { session: name })).body.messages).toEqual(ok);
    expectError(await rpc('Write', { session: 'agents/triage/sessions/nope', messages: [user('x')] }), 'NOT_FOUND', /nope/);
  });

  it('UpdateSession changes associated_resources by mask; DeleteSession is soft', async () => {
    await create({ session_id: 'upd', title: 'Keep' });
    const name = 'agents/triage/sessions/upd';
    const upd = await rpc<{ session: Session }>('UpdateSession', { session: { name, associated_resources: ['issues/i1'], title: 'ignored' }, update_mask: 'associated_resources' });
    expect(upd.body.session).toMatchObject({ associatedResources: ['issues/i1'], title: 'Keep' });
    expect((await rpc('DeleteSession', { name })).status).toBe(200);
    expect((await rpc<{ session: Session }>('GetSession', { name })).body.session.deleteTime).toEqual(expect.any(String));
    expect(await listNames({ parent: 'agents/triage' })).not.toContain(name);
    expect(await listNames({ parent: 'agents/triage', show_deleted: true })).toContain(name);
    expectError(await rpc('Write', { session: name, messages: [user('x')] }), 'FAILED_PRECONDITION', /deleted/);
  });

  it('ListSessions spans every agent with an empty parent, filters and orders by create_time; incognito and dry-run sessions only when asked', async () => {
    await rpc('CreateSession', { parent: 'agents/other', session_id: 'o1' });
    await create({ session_id: 'secret', incognito: true });
    await create({ session_id: 'dry', dry_run: true });
    const all = await listNames({ order_by: 'create_time asc' });
    expect(all).toEqual(expect.arrayContaining(['agents/triage/sessions/s1', 'agents/other/sessions/o1']));
    expect(all).not.toContain('agents/triage/sessions/secret');
    expect(all).not.toContain('agents/triage/sessions/dry');
    expect(all.indexOf('agents/triage/sessions/s1')).toBeLessThan(all.indexOf('agents/other/sessions/o1'));
    expect(await listNames({ parent: 'agents/other' })).toEqual(['agents/other/sessions/o1']);
    expect(await listNames({ filter: 'incognito = true', order_by: 'create_time asc' })).toEqual(['agents/triage/sessions/secret', 'agents/triage/sessions/dry']);
    const dry = await rpc<{ session: Session }>('GetSession', { name: 'agents/triage/sessions/dry' });
    expect(dry.body.session).toMatchObject({ dryRun: true, incognito: true });
    const o1 = (await rpc<{ session: Session }>('GetSession', { name: 'agents/other/sessions/o1' })).body.session;
    expect(await listNames({ filter: `create_time >= "${o1.createTime}"`, parent: 'agents/other' })).toEqual(['agents/other/sessions/o1']);
    expectError(await rpc('ListSessions', { filter: 'nonsense = 1' }), 'INVALID_ARGUMENT', /nonsense/);
  });

  it('DescribeSessions answers status, sessionLength and lastMessage for the same request as ListSessions', async () => {
    await create({ session_id: 'desc', initial_messages: [user('a')] });
    await rpc('Write', { session: 'agents/triage/sessions/desc', messages: [user('b')] });
    const res = await rpc<{ sessionDescriptions: Description[] }>('DescribeSessions', { parent: 'agents/triage', filter: 'name = "agents/triage/sessions/desc"' });
    expect(res.body.sessionDescriptions).toEqual([
      { session: expect.objectContaining({ name: 'agents/triage/sessions/desc' }), status: 'STATUS_EXECUTING', sessionLength: 2, lastMessage: expect.any(String) },
    ]);
    expect(res.body.sessionDescriptions[0].session).not.toHaveProperty('_length');
    const hidden = await rpc<{ sessionDescriptions: Description[] }>('DescribeSessions', {});
    expect(hidden.body.sessionDescriptions.map((d) => d.session.name)).not.toContain('agents/triage/sessions/secret');
  });

  it('LaunchBacktest creates a dry-run session at mock_time, tagged with the tool call', async () => {
    const res = await stack.request<{ session: string }>('POST', '/v1/agents:launchBacktest', { body: { agent_name: 'agents/triage', mock_time: '2024-05-01T10:00:00Z', tool_call_id: 'tc9' } });
    expect(res.status).toBe(200);
    const session = (await rpc<{ session: Session }>('GetSession', { name: res.body.session })).body.session;
    expect(session).toMatchObject({ dryRun: true, incognito: true, mockTime: '2024-05-01T10:00:00.000Z', associatedResources: ['tool-calls/tc9'] });
    const untagged = await rpc<{ session: string }>('LaunchBacktest', { agent_name: 'agents/triage', mock_time: '2024-05-01T10:00:00Z', tool_call_id: '' });
    expect((await rpc<{ session: Session }>('GetSession', { name: untagged.body.session })).body.session.associatedResources).toBeUndefined();
    expectError(await rpc('LaunchBacktest', { agent_name: 'agents/triage', mock_time: '2999-01-01T00:00:00Z' }), 'INVALID_ARGUMENT', /mock_time must be in the past/);
    expectError(await rpc('LaunchBacktest', { agent_name: 'agents/triage', mock_time: 'yesterday' }), 'INVALID_ARGUMENT', /mock_time must be an RFC 3339/);
    expectError(await rpc('LaunchBacktest', { agent_name: 'agents/triage' }), 'INVALID_ARGUMENT', /mock_time/);
    expectError(await rpc('LaunchBacktest', { agent_name: 'agents/nope', mock_time: '2024-05-01T10:00:00Z' }), 'NOT_FOUND', /agents\/nope/);
  });

  it('tenancy: another organization cannot see, read or write a session, nor take its name', async () => {
    const name = 'agents/triage/sessions/s1';
    expectError(await rpc('GetSession', { name }, GINA), 'NOT_FOUND', /s1/);
    expectError(await rpc('Read', { session: name }, GINA), 'NOT_FOUND', /s1/);
    expectError(await rpc('Write', { session: name, messages: [user('x')] }, GINA), 'NOT_FOUND', /s1/);
    expect(await listNames({}, GINA)).not.toContain(name);
    // Session names resolve to one organization: Globex (which also has an agent 'triage') cannot reuse it.
    const foreign = await create({ session_id: 's1' }, GINA);
    expectError(foreign, 'ALREADY_EXISTS', /s1/);
    // That the name is taken is all it tells: the same answer as acme re-using its own name, no organization named.
    const own = await create({ session_id: 's1' });
    const withoutRequestId = (body: unknown) => JSON.stringify(body).replace(/"requestId":"[^"]*"/g, '');
    expect([foreign.status, withoutRequestId(foreign.body)]).toEqual([own.status, withoutRequestId(own.body)]);
    expect(JSON.stringify(foreign.body)).not.toMatch(/acme/);
    expect((await create({ session_id: 'globex-own' }, GINA)).status).toBe(200);
  });

  it('permissions: writes need AGENTS_WRITE; reads need only membership', async () => {
    const name = 'agents/triage/sessions/s1';
    for (const [method, body] of [
      ['CreateSession', { parent: 'agents/triage' }],
      ['Write', { session: name, messages: [user('x')] }],
      ['UpdateSession', { session: { name, associated_resources: [] }, update_mask: 'associated_resources' }],
      ['DeleteSession', { name }],
      ['LaunchBacktest', { agent_name: 'agents/triage', mock_time: '2024-05-01T10:00:00Z' }],
    ] as const) {
      expect((await rpc(method, body, BOB)).status).toBe(403);
    }
    expect((await rpc('GetSession', { name }, BOB)).status).toBe(200);
    expect((await rpc('Read', { session: name }, BOB)).status).toBe(200);
    expect((await rpc('ListSessions', {}, BOB)).status).toBe(200);
  });
});
