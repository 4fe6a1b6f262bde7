import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Activity, type EphemeralNotification, RuntimeFault, type TurnInput } from '../agent-runtime.port';
import { loadRuntimeSettings } from '../runtime-settings';
import { OpenAiCompatibleRuntime } from './openai-runtime';

/** A local chat-completions server: each request is answered by the next scripted reply. */
type Reply = (res: ServerResponse) => Promise<void> | void;
interface Received {
  headers: IncomingMessage['headers'];
  body: { model: string; stream: boolean; messages: Array<Record<string, unknown>>; tools?: Array<{ function: { name: string } }>; reasoning_effort?: string };
}

let server: Server;
let baseUrl: string;
let script: Reply[] = [];
let received: Received[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      if (req.url !== '/v1/chat/completions' || req.method !== 'POST') {
        res.writeHead(404).end();
        return;
      }
      received.push({ headers: req.headers, body: JSON.parse(raw) as Received['body'] });
      const reply = script.shift();
      if (!reply) res.writeHead(500).end('no scripted reply');
      else void reply(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  script = [];
  received = [];
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const chunk = (delta: Record<string, unknown>) => `data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`;
const text = (content: string) => chunk({ content });
const toolFragment = (index: number, fn: Record<string, string>, id?: string) => chunk({ tool_calls: [{ index, ...(id ? { id } : {}), function: fn }] });

/** Streams the given pieces as written (a piece may end mid-line), with an optional pause between them. */
function stream(pieces: Array<string | Buffer>, pauseMs = 0): Reply {
  return async (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const piece of pieces) {
      res.write(piece);
      if (pauseMs) await sleep(pauseMs);
    }
    res.end();
  };
}
const status = (code: number, body: string, headers: Record<string, string> = {}): Reply => (res) => void res.writeHead(code, { 'content-type': 'application/json', ...headers }).end(body);

function runtime(env: Record<string, string> = {}) {
  return new OpenAiCompatibleRuntime(
    loadRuntimeSettings({ SVC_AGENT_RUNTIME: 'openai', SVC_MODEL_BASE_URL: baseUrl, SVC_MODEL: 'base-model', SVC_MODEL_API_KEY: 'sk-test', ...env }),
  );
}

function turn(messages: Activity[], settings: Partial<TurnInput['session']['settings']> = {}): TurnInput {
  return {
    session: { name: 'agents/triage/sessions/s1', org: 'acme', settings: { dryRun: false, incognito: false, ...settings } },
    agent: { name: 'agents/triage', prompt: 'You triage incidents.', enabledTools: ['TOOL_SQLDB_QUERY', 'TOOL_CHAT_POST_MESSAGE'] },
    messages,
    pending: messages.slice(-1),
    turnId: 'turn-3',
  };
}

async function run(rt: OpenAiCompatibleRuntime, input: TurnInput) {
  const emitted: EphemeralNotification[] = [];
  const result = await rt.runTurn(input, (n) => emitted.push(n));
  return { result, emitted };
}

const hello: Activity = { user: { text: { text: 'Is checkout down?' } } };

describe('the OpenAI-compatible runtime', () => {
  it('streams text deltas as AssistantOutput from seq 0 and commits the whole reply', async () => {
    // An event split mid-line, another mid-character (UTF-8 bytes) across writes; CRLF line ends; a comment.
    const event = text('Checkout ');
    const check = Buffer.from(text('\u2705'));
    const cut = check.indexOf(0xe2) + 1;
    script.push(
      stream([': keep-alive\r\n\r\n', event.slice(0, 20), event.slice(20), text('is up ').replace(/\n/g, '\r\n'), check.subarray(0, cut), check.subarray(cut), 'data: [DONE]\n\n']),
    );
    const { result, emitted } = await run(runtime(), turn([hello]));
    expect(result).toEqual({ activities: [{ assistant: { text: { text: 'Checkout is up \u2705' } } }] });
    expect(emitted).toEqual([
      { type: 'AssistantThinking', value: {} },
      { type: 'AssistantOutput', value: { seq: 0, text: 'Checkout ' } },
      { type: 'AssistantOutput', value: { seq: 1, text: 'is up ' } },
      { type: 'AssistantOutput', value: { seq: 2, text: '\u2705' } },
    ]);
    const [request] = received;
    expect(request.headers.authorization).toBe('Bearer sk-test');
    expect(request.body).toMatchObject({ model: 'base-model', stream: true });
    expect(request.body.reasoning_effort).toBeUndefined();
    expect(request.body.messages).toEqual([
      { role: 'system', content: 'You triage incidents.' },
      { role: 'user', content: 'Is checkout down?' },
    ]);
    expect(request.body.tools?.map((t) => t.function.name)).toEqual(['sqldb_query', 'chat_post_message', 'conclude']);
  });

  it('assembles a tool call split across chunks, answers it honestly, and calls the model again with the result', async () => {
    script.push(
      stream([
        toolFragment(0, { name: 'sqldb_query', arguments: '' }, 'call_abc'),
        toolFragment(0, { arguments: '{"query":' }),
        toolFragment(0, { arguments: '"select 1"}' }),
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] })}\n\n`,
        'data: [DONE]\n\n',
      ]),
      stream([text('The database '), text('tool is unavailable.'), 'data: [DONE]\n\n']),
    );
    const { result, emitted } = await run(runtime(), turn([hello]));
    const call = { id: 'call_abc', name: 'TOOL_SQLDB_QUERY', arguments: '{"query":"select 1"}' };
    expect(result.activities[0]).toEqual({ assistant: { toolCalls: [call] } });
    const results = (result.activities[1] as { user: { toolResults: Array<{ toolCallId: string; content: string }> } }).user.toolResults;
    expect(results[0].toolCallId).toBe('call_abc');
    expect(JSON.parse(results[0].content)).toMatchObject({ error: 'UNAVAILABLE' });
    expect(result.activities[2]).toEqual({ assistant: { text: { text: 'The database tool is unavailable.' } } });
    expect(emitted.map((n) => n.type)).toEqual(['AssistantThinking', 'ToolOutput', 'AssistantThinking', 'AssistantOutput', 'AssistantOutput']);
    expect(emitted.filter((n) => n.type === 'AssistantOutput').map((n) => (n.value as { seq: number }).seq)).toEqual([0, 1]);
    expect(received[1].body.messages.slice(-2)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_abc', type: 'function', function: { name: 'sqldb_query', arguments: '{"query":"select 1"}' } }] },
      { role: 'tool', tool_call_id: 'call_abc', content: results[0].content },
    ]);
  });

  it('stubs a write-classified tool in a dry-run session', async () => {
    script.push(
      stream([toolFragment(0, { name: 'chat_post_message', arguments: '{"channel":"#ops","text":"hi"}' }, 'c1'), 'data: [DONE]\n\n']),
      stream([text('Not posted.'), 'data: [DONE]\n\n']),
    );
    const { result } = await run(runtime(), turn([hello], { dryRun: true, incognito: true }));
    const results = (result.activities[1] as { user: { toolResults: Array<{ content: string }> } }).user.toolResults;
    expect(JSON.parse(results[0].content)).toMatchObject({ stubbed: true });
  });

  it('concludes when the model calls conclude', async () => {
    const args = JSON.stringify({ message: 'Disk is full.', issues: [{ title: 'Disk full', description: '/var at 100%' }] });
    script.push(stream([toolFragment(0, { name: 'conclude', arguments: args.slice(0, 10) }, 'c9'), toolFragment(0, { arguments: args.slice(10) }), 'data: [DONE]\n\n']));
    const { result } = await run(runtime(), turn([hello]));
    expect(result.conclusion).toEqual({ done: { message: 'Disk is full.', issues: [{ title: 'Disk full', description: '/var at 100%' }] } });
    expect(result.activities).toEqual([{ assistant: { text: { text: 'Disk is full.' } } }]);
  });

  it('maps the committed conversation, tool rounds included, and tells a backtest its clock', async () => {
    script.push(stream([text('ok'), 'data: [DONE]\n\n']));
    const history: Activity[] = [
      hello,
      { assistant: { toolCalls: [{ id: 'x1', name: 'TOOL_SQLDB_QUERY', arguments: '{}' }] } },
      { user: { toolResults: [{ toolCallId: 'x1', content: '{"rows":[]}' }] } },
      { assistant: { text: { text: 'Nothing found.' } } },
    ];
    await run(runtime(), turn(history, { mockTime: '2026-01-02T03:04:05Z' }));
    expect(received[0].body.messages).toEqual([
      { role: 'system', content: 'You triage incidents.\n\nThe current time is 2026-01-02T03:04:05Z.' },
      { role: 'user', content: 'Is checkout down?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'x1', type: 'function', function: { name: 'sqldb_query', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'x1', content: '{"rows":[]}' },
      { role: 'assistant', content: 'Nothing found.' },
    ]);
  });

  it('fails a rate-limited or failing call as retryable, and a refused one as final', async () => {
    script.push(status(429, '{"error":{"message":"slow down"}}', { 'retry-after': '7' }), status(500, 'boom'), status(401, '{"error":{"message":"bad key"}}'));
    const fault = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as RuntimeFault);
    const limited = await fault(run(runtime(), turn([hello])));
    expect(limited).toBeInstanceOf(RuntimeFault);
    expect(limited).toMatchObject({ retryable: true, retryAfterMs: 7000 });
    expect(limited?.message).toMatch(/HTTP 429.*slow down/);
    expect(await fault(run(runtime(), turn([hello])))).toMatchObject({ retryable: true, message: expect.stringMatching(/HTTP 500: boom/) });
    expect(await fault(run(runtime(), turn([hello])))).toMatchObject({ retryable: false, message: expect.stringMatching(/HTTP 401.*bad key/) });
  });

  it('keeps reading a slow stream, and gives up (retryable) on one that stalls', async () => {
    script.push(stream([text('slow '), text('but '), text('steady'), 'data: [DONE]\n\n'], 150));
    const slow = await run(runtime({ SVC_MODEL_IDLE_TIMEOUT_MS: '2000' }), turn([hello]));
    expect(slow.result.activities).toEqual([{ assistant: { text: { text: 'slow but steady' } } }]);
    script.push((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(text('then nothing'));
    });
    await expect(run(runtime({ SVC_MODEL_IDLE_TIMEOUT_MS: '200' }), turn([hello]))).rejects.toMatchObject({
      retryable: true,
      message: expect.stringMatching(/no data for 200 ms/),
    });
  });

  it('refuses an event longer than its buffer instead of holding it', async () => {
    script.push(stream([`data: ${'x'.repeat(1024 * 1024 + 10)}`]));
    await expect(run(runtime(), turn([hello]))).rejects.toMatchObject({ retryable: false, message: expect.stringMatching(/longer than 1048576/) });
  });

  it('sends a session to the compat_provider it names, with its compat_model and reasoning effort', async () => {
    script.push(stream([text('hi'), 'data: [DONE]\n\n']));
    const rt = runtime({ SVC_MODEL_BASE_URL: 'http://127.0.0.1:9/v1', SVC_PROVIDER_LOCAL_LAB_BASE_URL: baseUrl, SVC_PROVIDER_LOCAL_LAB_API_KEY: 'sk-lab' });
    await run(rt, turn([hello], { compatProvider: 'local-lab', compatModel: 'lab-model', compatReasoningEffort: 'high' }));
    expect(received[0].headers.authorization).toBe('Bearer sk-lab');
    expect(received[0].body).toMatchObject({ model: 'lab-model', reasoning_effort: 'high' });
    await expect(run(rt, turn([hello], { compatProvider: 'nowhere', compatModel: 'm' }))).rejects.toMatchObject({
      retryable: false,
      message: expect.stringMatching(/'nowhere' is not configured \(SVC_PROVIDER_NOWHERE_BASE_URL\)/),
    });
  });

  it('fails (retryable) when the provider cannot be reached', async () => {
    await expect(run(runtime({ SVC_MODEL_BASE_URL: 'http://127.0.0.1:9/v1' }), turn([hello]))).rejects.toMatchObject({ retryable: true });
  });
});
