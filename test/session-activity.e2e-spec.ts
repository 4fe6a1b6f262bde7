/**
 * Session activity on the notification stream (spec part 1, "Notification stream payloads"), with
 * the real processes: a Write on one api instance, the built-in agent runtime in the projector, and
 * subscribers on a second api instance. What the built-in runtime answers is documented in
 * docs/operations.md ("What the built-in runtime answers").
 */
import { ALICE, GINA, Stack, eventually, sleep } from './support/harness';
import { SseClient, startSecondApi } from './support/sse';

const S = 'svc.nxagent.v2.AgentService';
const TYPE_HOST = 'types.example.test';
const type = (name: string) => `${TYPE_HOST}/svc.nxagent.v1.${name}`;
const TOPIC = 'agents/a/sessions/s';
const QUESTION = 'Is checkout down? Run TOOL_SQLDB_QUERY please.';

type Value = Record<string, unknown> & { '@type': string };

describe('session activity on the notification stream', () => {
  let stack: Stack;
  let second: string;
  const clients: SseClient[] = [];

  beforeAll(async () => {
    stack = await Stack.start({ env: { SVC_TYPE_HOST: TYPE_HOST } });
    second = await startSecondApi(stack);
    const agent = { prompt: 'You triage incidents.', connections: [{ name: 'connections/warehouse', enabled_tools: ['TOOL_SQLDB_QUERY'] }] };
    expect((await stack.rpc(`${S}/CreateAgent`, { agent_id: 'a', agent })).status).toBe(200);
    expect((await stack.rpc(`${S}/CreateSession`, { parent: 'agents/a', session_id: 's' })).status).toBe(200);
  });
  afterAll(async () => {
    for (const c of clients.splice(0)) await c.close();
    await stack.destroy();
  });

  const subscribe = async (options: Parameters<typeof SseClient.open>[1]) => {
    const client = await SseClient.open(second, options);
    expect(client.status).toBe(200);
    clients.push(client);
    return client;
  };
  const values = (c: SseClient) => c.events.map((e) => e.data.value as Value);
  const isCommitted = (v: Value) => v['@type'] === type('ActivityNotification') || v['@type'] === type('Activity');

  it('a checkpoint Write on one api reaches subscribers on another: the user message, the turn as it runs, then its committed activities; a reconnect resumes committed only', async () => {
    const topical = await subscribe({ body: { topic: TOPIC } });
    const everything = await subscribe({});
    const otherOrg = await subscribe({ as: GINA });

    const userActivity = { '@type': type('Activity'), user: { text: { text: QUESTION } } };
    const write = await stack.rpc<{ sessionLength: number }>(`${S}/Write`, { session: TOPIC, messages: [userActivity] }, ALICE);
    expect(write.body).toMatchObject({ sessionLength: 1 });

    // The turn is over once the reply's bare Activity (offset 3: tool call, tool result, reply) arrives.
    const replied = (c: SseClient) => values(c).some((v) => v['@type'] === type('Activity') && (v.assistant as { text?: unknown } | undefined)?.text !== undefined);
    await eventually(async () => (replied(topical) && replied(everything) ? true : undefined), 20_000);
    const read = await stack.rpc<{ messages: Value[]; status: string }>(`${S}/Read`, { session: TOPIC });
    expect(read.body.messages).toHaveLength(4);
    const [, toolCalls, toolResults, reply] = read.body.messages;
    const callId = (toolCalls.assistant as { toolCalls: Array<{ id: string }> }).toolCalls[0].id;
    const replyText = (reply.assistant as { text: { text: string } }).text.text;
    expect(replyText).toBe(`You said: ${QUESTION}\nTOOL_SQLDB_QUERY: INVALID_ARGUMENT: TOOL_SQLDB_QUERY takes {"sql": "<one SQL statement>"}`);

    const committed = (offset: number, activity: Value): Value[] => [
      { '@type': type('ActivityNotification'), sessionOffset: offset, activity },
      activity,
    ];
    const deltas = replyText.match(/\s+|\S+\s*/g)!;
    const expected: Value[] = [
      ...committed(0, userActivity),
      { '@type': type('AssistantThinking') },
      { '@type': type('ToolOutput'), toolCallId: callId, text: (toolResults.user as { toolResults: Array<{ content: string }> }).toolResults[0].content },
      { '@type': type('AssistantThinking') },
      ...deltas.map((text, seq) => ({ '@type': type('AssistantOutput'), seq, text })),
      ...committed(1, toolCalls),
      ...committed(2, toolResults),
      ...committed(3, reply),
    ];
    expect(read.body.messages.every((m) => m['@type'] === type('Activity'))).toBe(true);
    expect(values(topical)).toEqual(expected);
    expect(topical.events.every((e) => e.data.topic === TOPIC)).toBe(true);
    // Without a topic: everything of the organization, here the same notifications.
    expect(values(everything)).toEqual(expected);
    expect(deltas.join('')).toBe(replyText);

    // Committed notifications carry an opaque id of the log position (on the last of each event's); ephemeral ones none.
    const ids = topical.events.filter((e) => e.id !== undefined);
    expect(topical.events.filter((e) => !isCommitted(e.data.value as Value)).every((e) => e.id === undefined)).toBe(true);
    expect(ids.length).toBeGreaterThanOrEqual(2);
    const midStream = topical.events[1].id;
    expect(midStream).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // Reconnect from the id after the user message: the committed ones after it, none of the ephemeral ones.
    const resumed = await subscribe({ body: { topic: TOPIC }, lastEventId: midStream });
    await eventually(async () => (resumed.events.length >= 6 ? true : undefined));
    await sleep(200);
    expect(values(resumed)).toEqual([...committed(1, toolCalls), ...committed(2, toolResults), ...committed(3, reply)]);
    expect(resumed.events.map((e) => e.id)).toEqual(topical.events.slice(-6).map((e) => e.id));

    // Another organization's subscriber received nothing of it.
    expect(otherOrg.events).toEqual([]);
  });
});
