import { FakeSlack } from '../../../../../../test/support/fake-slack';
import { DEFAULT_TOOL_LIMITS, type ToolConnection, ToolError } from '../tool-adapter.port';
import { ChatToolAdapter } from './chat.adapter';

const TOKEN = 'xoxb-unit-token-value';
const context = { limits: DEFAULT_TOOL_LIMITS };

async function failure(work: Promise<unknown>): Promise<ToolError> {
  const error = await work.then(
    () => new Error('no error'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}

describe('TOOL_CHAT_POST_MESSAGE (the chat tool adapter against a local Slack)', () => {
  const slack = new FakeSlack(TOKEN, [
    { id: 'C0OPS', name: 'ops', member: true },
    { id: 'C0CFG', name: 'configured', member: true },
  ]);
  let apiUrl: string;
  beforeAll(async () => {
    apiUrl = await slack.start();
  });
  afterAll(() => slack.stop());

  const connection = (details: Record<string, unknown>): ToolConnection => ({ name: 'connections/slack', type: 'CONNECTION_TYPE_CHAT', details });

  it('checks the arguments before any call', async () => {
    const adapter = new ChatToolAdapter();
    const before = slack.requests.length;
    const at = connection({ bot_token: TOKEN, api_url: apiUrl });
    for (const args of [{}, { channel: '#ops' }, { channel: 'C0OPS!', text: 'x' }, { channel: '#ops', text: ' ' }, { channel: '#ops', text: 'x', thread_ts: 'yesterday' }]) {
      expect(await failure(adapter.run('TOOL_CHAT_POST_MESSAGE', args, at, context))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
    expect(slack.requests).toHaveLength(before);
  });

  it('answers FAILED_PRECONDITION without a bot token', async () => {
    expect(await failure(new ChatToolAdapter().run('TOOL_CHAT_POST_MESSAGE', { channel: '#ops', text: 'x' }, connection({}), context))).toMatchObject({ code: 'FAILED_PRECONDITION' });
  });

  it('falls back to the configured bot_channels when the membership cannot be read, and says when Slack rate-limits the post', async () => {
    const adapter = new ChatToolAdapter();
    const at = connection({ bot_token: TOKEN, api_url: apiUrl, bot_channels: [{ name: '#configured', id: 'C0CFG' }] });
    slack.rateLimitNext('users.conversations', 20);
    expect(await adapter.run('TOOL_CHAT_POST_MESSAGE', { channel: '#Configured', text: 'hello' }, at, context)).toEqual({ channel: '#configured', channelId: 'C0CFG', ts: expect.any(String) });
    slack.rateLimitNext('chat.postMessage', 30);
    const limited = await failure(adapter.run('TOOL_CHAT_POST_MESSAGE', { channel: '#configured', text: 'again' }, at, context));
    expect(limited).toMatchObject({ code: 'UNAVAILABLE', message: 'connections/slack: slack: chat.postMessage is rate limited; retry after 30 s' });
  });

  it('answers a refused token as the connection\'s precondition, never with the token', async () => {
    const at = connection({ bot_token: 'xoxb-wrong-value', api_url: apiUrl, bot_channels: [{ name: '#ops', id: 'C0OPS' }] });
    const refused = await failure(new ChatToolAdapter().run('TOOL_CHAT_POST_MESSAGE', { channel: '#ops', text: 'x' }, at, context));
    expect(refused).toMatchObject({ code: 'FAILED_PRECONDITION', message: expect.stringContaining('invalid_auth') });
    expect(refused.message).not.toContain('xoxb-wrong-value');
  });
});
