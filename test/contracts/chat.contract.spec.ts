import { SlackChat } from '@svc/infrastructure/integrations/chat/slack.chat';
import { ChatError } from '@svc/infrastructure/integrations/chat/chat.port';
import { type FakeChannel, FakeSlack } from '../support/fake-slack';
import { BULK_CHANNELS, describeChatContract } from './chat.contract';

const TOKEN = 'xoxb-contract-token-value';

function workspace(): FakeSlack {
  const channels: FakeChannel[] = [
    ...Array.from({ length: BULK_CHANNELS }, (_, i) => ({ id: `C1${String(i).padStart(5, '0')}`, name: `bulk-${String(i).padStart(3, '0')}`, member: true })),
    { id: 'C0OPS', name: 'ops', member: true },
    { id: 'G0SEC', name: 'secret', member: true, isPrivate: true },
    { id: 'C0LOBBY', name: 'lobby', member: false },
    { id: 'C0OLD', name: 'old', member: true, archived: true },
  ];
  return new FakeSlack(TOKEN, channels, [
    { id: 'U0ALICE', name: 'alice', realName: 'Alice A.', email: 'alice@example.com' },
    { id: 'U0BOB', name: 'bob', deleted: true },
  ]);
}

describeChatContract('Slack (@slack/web-api against a local server answering as Slack documents)', async () => {
  const slack = workspace();
  const apiUrl = await slack.start();
  return { chat: new SlackChat({ token: TOKEN, apiUrl }), posted: () => slack.posted.map(({ channel, text, threadTs }) => ({ channel, text, ...(threadTs ? { threadTs } : {}) })), close: () => slack.stop() };
});

describe('Slack chat: credentials, paging and rate limits', () => {
  let slack: FakeSlack;
  let apiUrl: string;
  beforeAll(async () => {
    slack = workspace();
    apiUrl = await slack.start();
  });
  afterAll(() => slack.stop());

  it('answers PERMISSION_DENIED for a refused token, and the error never holds the token', async () => {
    const chat = new SlackChat({ token: 'xoxb-wrong-secret-value', apiUrl });
    const error = (await chat.botMembership().then(
      () => new Error('no error'),
      (e: unknown) => e,
    )) as ChatError;
    expect(error).toMatchObject({ code: 'PERMISSION_DENIED', message: 'slack: users.conversations answered invalid_auth' });
    expect(JSON.stringify({ message: error.message, stack: error.stack })).not.toContain('xoxb-wrong-secret-value');
    expect(slack.requests.at(-1)?.authorization).toBe('Bearer xoxb-wrong-secret-value');
  });

  it('pages membership with the cursor Slack returns, the token in the Authorization header only', async () => {
    slack.requests.length = 0;
    await new SlackChat({ token: TOKEN, apiUrl }).botMembership();
    const calls = slack.callsOf('users.conversations');
    expect(calls.length).toBe(2);
    expect(calls[0].params).toMatchObject({ types: 'public_channel,private_channel', exclude_archived: 'true', limit: '200' });
    expect(calls[0].params.cursor).toBeUndefined();
    expect(calls[1].params.cursor).toEqual(expect.any(String));
    expect(calls.every((c) => c.params.token === undefined)).toBe(true);
  });

  it('answers a 429 at once as RESOURCE_EXHAUSTED with Retry-After, without retrying', async () => {
    slack.requests.length = 0;
    slack.rateLimitNext('chat.postMessage', 30);
    const started = Date.now();
    const error = (await new SlackChat({ token: TOKEN, apiUrl }).postMessage({ channel: 'C0OPS', text: 'x' }).catch((e: unknown) => e)) as ChatError;
    expect(error).toMatchObject({ code: 'RESOURCE_EXHAUSTED', retryAfterSeconds: 30 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(slack.callsOf('chat.postMessage')).toHaveLength(1);
  });

  it('answers UNAVAILABLE when Slack cannot be reached', async () => {
    const error = (await new SlackChat({ token: TOKEN, apiUrl: 'http://127.0.0.1:9/api/' }).botMembership().catch((e: unknown) => e)) as ChatError;
    expect(error).toMatchObject({ code: 'UNAVAILABLE' });
    expect(error.message).not.toContain(TOKEN);
  });
});
