import type { Activity, EphemeralNotification, RuntimeSessionSettings, ToolCall, ToolRunner, TurnInput } from './agent-runtime.port';
import { BuiltinRuntime, deltasOf, newUserText } from './builtin-runtime';

const user = (text: string): Activity => ({ user: { text: { text } } });
const assistant = (text: string): Activity => ({ assistant: { text: { text } } });

function turn(pending: Activity[], options: { tools?: string[]; settings?: Partial<RuntimeSessionSettings>; before?: Activity[] } = {}): TurnInput {
  return {
    session: { name: 'agents/triage/sessions/s1', org: 'acme', settings: { dryRun: false, incognito: false, ...options.settings } },
    agent: { name: 'agents/triage', prompt: 'You triage.', enabledTools: options.tools ?? [] },
    messages: [...(options.before ?? []), ...pending],
    pending,
    turnId: 'turn-1',
  };
}

async function run(input: TurnInput, runTool?: ToolRunner) {
  const emitted: EphemeralNotification[] = [];
  const result = await new BuiltinRuntime({ runTool }).runTurn(input, (n) => emitted.push(n));
  return { result, emitted };
}

describe('the built-in runtime', () => {
  it('thinks, streams word deltas from seq 0 that add up to the reply, and commits the reply', async () => {
    const { result, emitted } = await run(turn([user('Is checkout   down?')]));
    expect(result.activities).toEqual([assistant('You said: Is checkout down?')]);
    expect(result.conclusion).toBeUndefined();
    expect(emitted[0]).toEqual({ type: 'AssistantThinking', value: {} });
    const outputs = emitted.slice(1).map((n) => (n.type === 'AssistantOutput' ? n.value : null));
    expect(outputs.map((o) => o?.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(outputs.map((o) => o?.text).join('')).toBe('You said: Is checkout down?');
  });

  it('answers only the user text of the messages its turn covers, every time the same way', async () => {
    const before = [user('first'), assistant('You said: first')];
    const pending = [user('second'), { assistant: { text: { text: 'ignored' } } } as Activity, user('third')];
    const a = await run(turn(pending, { before }));
    const b = await run(turn(pending, { before }));
    expect(a.result.activities).toEqual([assistant('You said: second third')]);
    expect(b).toEqual(a);
    expect(newUserText([assistant('y')])).toBe('');
    expect((await run(turn([], { before }))).result.activities).toEqual([assistant('Nothing new to answer.')]);
  });

  it('quotes at most 500 characters of the user text', async () => {
    const { result } = await run(turn([user('a'.repeat(2000))]));
    const reply = (result.activities[0] as { assistant: { text: { text: string } } }).assistant.text.text;
    expect(reply).toBe(`You said: ${'a'.repeat(500)}…`);
  });

  it('calls the enabled tools the user names, answering honestly that they are unavailable here', async () => {
    const { result, emitted } = await run(
      turn([user('Run TOOL_SQLDB_QUERY and TOOL_PROMQL_QUERY, then TOOL_SQLDB_QUERY again')], { tools: ['TOOL_SQLDB_QUERY'] }),
    );
    expect(result.activities[0]).toEqual({ assistant: { toolCalls: [{ id: 'turn-1-call-0', name: 'TOOL_SQLDB_QUERY', arguments: '{}' }] } });
    const results = (result.activities[1] as { user: { toolResults: Array<{ toolCallId: string; content: string }> } }).user.toolResults;
    expect(results).toHaveLength(1);
    expect(results[0].toolCallId).toBe('turn-1-call-0');
    expect(JSON.parse(results[0].content)).toMatchObject({ error: 'UNAVAILABLE' });
    expect(result.activities[2]).toEqual(
      assistant(
        'You said: Run TOOL_SQLDB_QUERY and TOOL_PROMQL_QUERY, then TOOL_SQLDB_QUERY again\n' +
          'TOOL_SQLDB_QUERY: UNAVAILABLE: TOOL_SQLDB_QUERY cannot run in this runtime: no executor for it is configured\n' +
          'TOOL_PROMQL_QUERY is not enabled for this agent.',
      ),
    );
    expect(emitted.map((n) => n.type).slice(0, 3)).toEqual(['AssistantThinking', 'ToolOutput', 'AssistantThinking']);
    expect(emitted[1]).toEqual({ type: 'ToolOutput', value: { toolCallId: 'turn-1-call-0', text: results[0].content } });
  });

  it('stubs a write-classified tool in a dry-run session, and runs nothing that writes', async () => {
    const { result } = await run(turn([user('post it with TOOL_CHAT_POST_MESSAGE')], { tools: ['TOOL_CHAT_POST_MESSAGE'], settings: { dryRun: true, incognito: true } }));
    const results = (result.activities[1] as { user: { toolResults: Array<{ content: string }> } }).user.toolResults;
    expect(JSON.parse(results[0].content)).toMatchObject({ stubbed: true });
    expect(result.activities[2]).toEqual(assistant('You said: post it with TOOL_CHAT_POST_MESSAGE\nTOOL_CHAT_POST_MESSAGE: stubbed (not run).'));
  });

  it('calls a tool with the JSON arguments of a `/tool NAME {json}` line, through the executor, and quotes its result', async () => {
    const seen: ToolCall[] = [];
    const executor: ToolRunner = async (call) => {
      seen.push(call);
      const content = call.name === 'TOOL_SQLDB_QUERY' ? { columns: ['count'], rows: [[3]], rowCount: 1 } : { error: 'INVALID_ARGUMENT', message: 'no table' };
      return { toolCallId: call.id, content: JSON.stringify(content) };
    };
    const text = 'How many orders?\n/tool TOOL_SQLDB_QUERY {"sql":"select count(*) from orders"}\n  /tool TOOL_SQLDB_DESCRIBE_TABLE\nAlso TOOL_SQLDB_QUERY and /tool TOOL_PROMQL_QUERY {}';
    const { result } = await run(turn([user(text)], { tools: ['TOOL_SQLDB_QUERY', 'TOOL_SQLDB_DESCRIBE_TABLE'] }), executor);
    // A tool named by a /tool line is not called a second time without arguments.
    expect(seen).toEqual([
      { id: 'turn-1-call-0', name: 'TOOL_SQLDB_QUERY', arguments: '{"sql":"select count(*) from orders"}' },
      { id: 'turn-1-call-1', name: 'TOOL_SQLDB_DESCRIBE_TABLE', arguments: '{}' },
    ]);
    expect(result.activities[0]).toEqual({ assistant: { toolCalls: seen } });
    const reply = (result.activities[2] as { assistant: { text: { text: string } } }).assistant.text.text;
    expect(reply.split('\n').slice(1)).toEqual([
      'TOOL_SQLDB_QUERY: {"columns":["count"],"rows":[[3]],"rowCount":1}',
      'TOOL_SQLDB_DESCRIBE_TABLE: INVALID_ARGUMENT: no table',
      'TOOL_PROMQL_QUERY is not enabled for this agent.',
    ]);
  });

  it('passes arguments that are not JSON on to the executor, which answers for them, and quotes at most 2000 characters of a result', async () => {
    const executor: ToolRunner = async (call) => ({ toolCallId: call.id, content: JSON.stringify({ echo: call.arguments, pad: 'x'.repeat(3000) }) });
    const { result } = await run(turn([user('/tool TOOL_SQLDB_QUERY select 1')], { tools: ['TOOL_SQLDB_QUERY'] }), executor);
    expect((result.activities[0] as { assistant: { toolCalls: ToolCall[] } }).assistant.toolCalls[0].arguments).toBe('select 1');
    const reply = (result.activities[2] as { assistant: { text: { text: string } } }).assistant.text.text;
    expect(reply.split('\n')[1]).toHaveLength('TOOL_SQLDB_QUERY: '.length + 2000 + 1);
    expect(reply.endsWith('…')).toBe(true);
  });

  it('concludes when asked to, proposing the issues of `issue:` lines', async () => {
    const text = 'Please conclude.\nissue: Disk full | /var is at 100%\nIssue:  Slow checkout \nissue:  | no title';
    const { result } = await run(turn([user(text)]));
    expect(result.conclusion?.done.issues).toEqual([
      { title: 'Disk full', description: '/var is at 100%' },
      { title: 'Slow checkout', description: '' },
    ]);
    const reply = (result.activities[0] as { assistant: { text: { text: string } } }).assistant.text.text;
    expect(reply.endsWith('Concluded with 2 proposed issue(s).')).toBe(true);
    expect(result.conclusion?.done.message).toBe(reply);
    expect((await run(turn([user('inconclusive, not concluded')]))).result.conclusion).toBeUndefined();
  });

  it('splits any reply into deltas that concatenate back to it', () => {
    for (const text of ['', ' lead', 'a  b\n c ', 'one']) expect(deltasOf(text).join('')).toBe(text);
  });
});
