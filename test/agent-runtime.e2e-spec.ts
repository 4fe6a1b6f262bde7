import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually, Stack, stopProcess } from './support/harness';

const S = 'svc.nxagent.v2.AgentService';
const ACTIVITY = 'type.googleapis.com/svc.nxagent.v1.Activity';
const user = (text: string) => ({ '@type': ACTIVITY, user: { text: { text } } });
const assistant = (text: string) => ({ '@type': ACTIVITY, assistant: { text: { text } } });

interface ReadAnswer {
  session: string;
  sessionLength: number;
  messages: Array<Record<string, unknown>>;
  status: string;
}
interface Description {
  session: { name: string };
  status: string;
  sessionLength: number;
  conclusion?: { done: { message: string; issues: Array<{ title: string; description: string }> } };
}

/** What the SQL tool answers a call without arguments. */
const NEEDS_SQL = 'TOOL_SQLDB_QUERY takes {"sql": "<one SQL statement>"}';

const agent = { prompt: 'You triage incidents.', connections: [{ name: 'connections/warehouse', enabled_tools: ['TOOL_SQLDB_QUERY'] }] };

async function readWhen(stack: Stack, session: string, done: (r: ReadAnswer) => boolean): Promise<ReadAnswer> {
  return eventually(async () => {
    const res = await stack.rpc<ReadAnswer>(`${S}/Read`, { session });
    return done(res.body) ? res.body : undefined;
  }, 20_000);
}

describe('the agent runtime (built-in, the default)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start();
    expect((await stack.rpc(`${S}/CreateAgent`, { agent_id: 'triage', agent })).status).toBe(200);
  });
  afterAll(() => stack.destroy());

  it('answers a checkpoint write: its tool call, the tool executor\'s honest result and its reply, then the session waits', async () => {
    const write = await stack.rpc<{ session: string; sessionLength: number }>(`${S}/Write`, {
      parent: 'agents/triage',
      messages: [user('Is checkout down? Run TOOL_SQLDB_QUERY please.')],
    });
    expect(write.status).toBe(200);
    const session = write.body.session;
    const read = await readWhen(stack, session, (r) => r.status === 'STATUS_WAITING');
    expect(read.messages).toEqual([
      user('Is checkout down? Run TOOL_SQLDB_QUERY please.'),
      { '@type': ACTIVITY, assistant: { toolCalls: [{ id: 'turn-0-call-0', name: 'TOOL_SQLDB_QUERY', arguments: '{}' }] } },
      // Named without a `/tool` line, the tool is called with no arguments, and the executor says what it needs.
      { '@type': ACTIVITY, user: { toolResults: [{ toolCallId: 'turn-0-call-0', content: JSON.stringify({ error: 'INVALID_ARGUMENT', message: NEEDS_SQL }) }] } },
      assistant(`You said: Is checkout down? Run TOOL_SQLDB_QUERY please.\nTOOL_SQLDB_QUERY: INVALID_ARGUMENT: ${NEEDS_SQL}`),
    ]);
  });

  it('concludes when asked to, and DescribeSessions shows the conclusion with its proposed issues', async () => {
    const write = await stack.rpc<{ session: string }>(`${S}/Write`, { parent: 'agents/triage', messages: [user('Nothing more to check.')] });
    const session = write.body.session;
    await readWhen(stack, session, (r) => r.status === 'STATUS_WAITING');
    await stack.rpc(`${S}/Write`, { session, messages: [user('Please conclude.\nissue: Disk full | /var is at 100%')] });
    const described = await eventually(async () => {
      const res = await stack.rpc<{ sessionDescriptions: Description[] }>(`${S}/DescribeSessions`, { parent: 'agents/triage', filter: `name = "${session}"` });
      const d = res.body.sessionDescriptions?.[0];
      return d?.status === 'STATUS_WAITING' && d.conclusion ? d : undefined;
    }, 20_000);
    const reply = 'You said: Please conclude. issue: Disk full | /var is at 100%\nConcluded with 1 proposed issue(s).';
    expect(described).toMatchObject({ sessionLength: 4, conclusion: { done: { message: reply, issues: [{ title: 'Disk full', description: '/var is at 100%' }] } } });
    expect((await readWhen(stack, session, () => true)).messages.slice(2)).toEqual([user('Please conclude.\nissue: Disk full | /var is at 100%'), assistant(reply)]);
  });

  it('stubs write-classified tools in dry-run (backtest) and incognito sessions, and runs them as usual elsewhere; such sessions are listed only when asked for', async () => {
    const poster = { prompt: 'You post updates.', connections: [{ name: 'connections/warehouse', enabled_tools: ['TOOL_SQLDB_QUERY'] }, { name: 'connections/slack', enabled_tools: ['TOOL_CHAT_POST_MESSAGE'] }] };
    expect((await stack.rpc(`${S}/CreateAgent`, { agent_id: 'poster', agent: poster })).status).toBe(200);
    const ask = 'Post it with TOOL_CHAT_POST_MESSAGE after TOOL_SQLDB_QUERY.';
    const answerIn = async (session: string) => {
      expect((await stack.rpc(`${S}/Write`, { session, messages: [user(ask)] })).status).toBe(200);
      const read = await readWhen(stack, session, (r) => r.status === 'STATUS_WAITING' && r.sessionLength === 4);
      const results = (read.messages[2].user as { toolResults: Array<{ toolCallId: string; content: string }> }).toolResults;
      return { results: results.map((r) => JSON.parse(r.content) as Record<string, unknown>), reply: read.messages[3] };
    };

    const backtest = await stack.request<{ session: string }>('POST', '/v1/agents:launchBacktest', { body: { agent_name: 'agents/poster', mock_time: '2024-05-01T10:00:00Z' } });
    expect(backtest.status).toBe(200);
    const dry = await answerIn(backtest.body.session);
    expect(dry.results).toEqual([expect.objectContaining({ stubbed: true, message: expect.stringContaining('a dry-run session does not run it') }), { error: 'INVALID_ARGUMENT', message: NEEDS_SQL }]);
    expect(dry.reply).toEqual(assistant(`You said: ${ask}\nTOOL_CHAT_POST_MESSAGE: stubbed (not run).\nTOOL_SQLDB_QUERY: INVALID_ARGUMENT: ${NEEDS_SQL}`));

    const secret = await stack.rpc<{ session: { name: string } }>(`${S}/CreateSession`, { parent: 'agents/poster', incognito: true });
    const incognito = await answerIn(secret.body.session.name);
    expect(incognito.results[0]).toEqual(expect.objectContaining({ stubbed: true, message: expect.stringContaining('an incognito session does not run it') }));

    // An ordinary session does not stub it: it goes to the executor's chat adapter, which asks for its arguments.
    const plain = await stack.rpc<{ session: { name: string } }>(`${S}/CreateSession`, { parent: 'agents/poster' });
    const ordinary = await answerIn(plain.body.session.name);
    expect(ordinary.results).toEqual([
      { error: 'INVALID_ARGUMENT', message: 'TOOL_CHAT_POST_MESSAGE takes {"channel": "#name", "text": "<message>", "thread_ts": "<optional thread>"}' },
      { error: 'INVALID_ARGUMENT', message: NEEDS_SQL },
    ]);
    expect(ordinary.results.some((r) => 'stubbed' in r)).toBe(false);

    // DescribeSessions and ListSessions show the dry-run and incognito sessions only when the filter asks for them.
    const names = async (method: 'ListSessions' | 'DescribeSessions', filter?: string) => {
      const res = await stack.rpc<{ sessions?: Array<{ name: string }>; sessionDescriptions?: Array<{ session: { name: string } }> }>(`${S}/${method}`, { parent: 'agents/poster', ...(filter ? { filter } : {}) });
      expect(res.status).toBe(200);
      return (res.body.sessions ?? res.body.sessionDescriptions?.map((d) => d.session) ?? []).map((x) => x.name).sort();
    };
    for (const method of ['ListSessions', 'DescribeSessions'] as const) {
      expect(await names(method)).toEqual([plain.body.session.name]);
      expect(await names(method, 'incognito = true')).toEqual([backtest.body.session, secret.body.session.name].sort());
    }
  });
});

/**
 * A chat-completions server the test controls: the first call streams a delta and then holds the
 * stream open (the turn is under way); later calls answer at once.
 */
class HeldModel {
  private server!: Server;
  calls = 0;
  private held: ServerResponse | null = null;
  private firstCall!: () => void;
  readonly firstCallSeen = new Promise<void>((resolve) => (this.firstCall = resolve));

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        this.calls++;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const delta = (content: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`;
        if (this.calls === 1) {
          res.write(delta('Looking '));
          this.held = res;
          this.firstCall();
        } else {
          res.end(`${delta('Checkout ')}${delta('is fine.')}data: [DONE]\n\n`);
        }
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    this.held?.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

describe('the agent runtime across a projector crash (OpenAI-compatible adapter, local model server)', () => {
  let stack: Stack;
  const model = new HeldModel();
  beforeAll(async () => {
    const baseUrl = await model.start();
    stack = await Stack.start({ env: { SVC_AGENT_RUNTIME: 'openai', SVC_MODEL_BASE_URL: baseUrl, SVC_MODEL: 'test-model' } });
    expect((await stack.rpc(`${S}/CreateAgent`, { agent_id: 'triage', agent })).status).toBe(200);
  });
  afterAll(async () => {
    await stack.destroy();
    await model.stop();
  });

  it('a checkpoint write makes the session EXECUTING; kill -9 mid-turn and a restart yield exactly one reply, then WAITING', async () => {
    const write = await stack.rpc<{ session: string }>(`${S}/Write`, { parent: 'agents/triage', messages: [user('Is checkout down?')] });
    const session = write.body.session;
    await model.firstCallSeen;
    const during = await stack.rpc<ReadAnswer>(`${S}/Read`, { session });
    expect(during.body).toMatchObject({ status: 'STATUS_EXECUTING', sessionLength: 1 });

    const projector = stack.processes[0];
    await stopProcess(projector, 'SIGKILL');
    stack.startProjector();
    const read = await readWhen(stack, session, (r) => r.status === 'STATUS_WAITING');
    expect(read.messages).toEqual([user('Is checkout down?'), assistant('Checkout is fine.')]);
    expect(model.calls).toBe(2);

    // Killed right after the commit, the checkpoint may still lie before the turn: the restarted
    // projector finds the turn done (no model call, no second reply) before it takes the next one.
    await stopProcess(stack.processes[stack.processes.length - 1], 'SIGKILL');
    stack.startProjector();
    await stack.rpc(`${S}/Write`, { session, messages: [user('And now?')] });
    const next = await readWhen(stack, session, (r) => r.status === 'STATUS_WAITING' && r.sessionLength > 2);
    expect(next.messages).toEqual([user('Is checkout down?'), assistant('Checkout is fine.'), user('And now?'), assistant('Checkout is fine.')]);
    expect(model.calls).toBe(3);
  });
});
