/**
 * The chat port in the product (issue 21): chat triggers judged on the bot's membership read live
 * from Slack (the configured bot_channels as the fallback), InvokeTrigger's channel resolved from
 * it, TOOL_CHAT_POST_MESSAGE run by the tool executor in the real projector, and the change-monitor
 * notification methods, whose test DM goes through the port. Slack is a local server answering as
 * its Web API reference documents (test/support/fake-slack.ts).
 */
import { BOB, DEPLOYER, eventually, GINA, MACHINE, Stack, TEST_CONFIG } from './support/harness';
import { chatSignature } from '@svc/infrastructure/integrations/chat/signature';
import { FakeSlack } from './support/fake-slack';

const T = 'svc.triggers.v1.TriggersService';
const A = 'svc.nxagent.v2.AgentService';
const ACTIVITY = 'type.googleapis.com/svc.nxagent.v1.Activity';
const BOT_TOKEN = 'xoxb-e2e-bot-token-4f1c';
const CM = 'svc.monitoring_plans.v1.ChangeMonitorNotificationsService';

interface ReadAnswer {
  messages: Array<Record<string, unknown>>;
  status: string;
  sessionLength: number;
}

function config(apiUrl: string): string {
  return TEST_CONFIG.replace(
    '      - id: pagerduty\n',
    `      - id: slackbot
        display_name: Slack bot
        type: CONNECTION_TYPE_CHAT
        details: {chat: {team_id: T010, signing_secret: "slackbot-signing", bot_token: "${BOT_TOKEN}", api_url: "${apiUrl}", bot_channels: [{name: "#ops", id: C0OPS}, {name: "#stale", id: C0STALE}], handles: [{id: svc, user_id: U0SVC, default: true}, {id: oncall, email: "oncall@acme.test"}]}}
        tools: [{tool: TOOL_CHAT_POST_MESSAGE, enabled: true}]
      - id: slackdown
        display_name: Slack (unreachable)
        type: CONNECTION_TYPE_CHAT
        details: {chat: {team_id: T011, bot_token: "${BOT_TOKEN}", api_url: "http://127.0.0.1:9/api/", bot_channels: [{name: "#fallback", id: C0FB}]}}
      - id: pagerduty
`,
  );
}

describe('the chat port (Slack) in the product', () => {
  let stack: Stack;
  const slack = new FakeSlack(
    BOT_TOKEN,
    [
      { id: 'C0OPS', name: 'ops', member: true },
      { id: 'C0INC', name: 'incidents', member: true },
      { id: 'C0STALE', name: 'stale', member: false },
    ],
    [
      { id: 'U0ALICE', name: 'alice', email: 'alice@acme.test' },
      { id: 'U0BOB', name: 'bob', email: 'bob@acme.test' },
      { id: 'U0ONCALL', name: 'oncall', email: 'oncall@acme.test', isBot: true },
    ],
    'T010',
  );

  beforeAll(async () => {
    const apiUrl = await slack.start();
    stack = await Stack.start({ config: config(apiUrl) });
    for (const id of ['responder', 'fallback']) expect((await stack.rpc(`${A}/CreateAgent`, { agent_id: id, agent: { title: id } })).status).toBe(200);
  }, 90_000);
  afterAll(async () => {
    await stack?.destroy();
    await slack.stop();
  });

  const createTrigger = (id: string, agent: string, connection: string, channels: string[]) =>
    stack.rpc<{ trigger: { name: string } }>(`${T}/CreateTrigger`, { trigger_id: id, trigger: { agent: `agents/${agent}`, configuration: { chat_message_posted: { chat_connection: connection, channels } } } });

  describe('chat triggers check the bot membership through the port', () => {
    it('accepts a channel the bot joined that the configuration does not list, and refuses a configured one it left', async () => {
      const joined = await createTrigger('incidents-posted', 'responder', 'connections/slackbot', ['#incidents']);
      expect(joined.status).toBe(200);
      const left = await createTrigger('stale-posted', 'responder', 'connections/slackbot', ['#stale']);
      expect(left.status).toBe(400);
      expect(left.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining("is not a member of '#stale' (member of: #ops, #incidents)") } });
      expect(slack.callsOf('users.conversations')[0]).toMatchObject({ authorization: `Bearer ${BOT_TOKEN}` });
    });

    it('reads the membership once per TTL: further trigger writes do not call Slack', async () => {
      const calls = slack.callsOf('users.conversations').length;
      expect(calls).toBeGreaterThan(0);
      expect((await createTrigger('ops-posted', 'responder', 'connections/slackbot', ['#ops'])).status).toBe(200);
      const update = await stack.rpc(`${T}/UpdateTrigger`, {
        trigger: { name: 'triggers/ops-posted', configuration: { chat_message_posted: { chat_connection: 'connections/slackbot', channels: ['#ops', '#incidents'] } } },
        update_mask: 'configuration',
      });
      expect(update.status).toBe(200);
      expect(slack.callsOf('users.conversations')).toHaveLength(calls);
    });

    it('falls back to the configured bot_channels when Slack cannot be reached', async () => {
      expect((await createTrigger('fallback-posted', 'fallback', 'connections/slackdown', ['#fallback'])).status).toBe(200);
      const other = await createTrigger('fallback-other', 'fallback', 'connections/slackdown', ['#incidents']);
      expect(other.status).toBe(400);
      expect(other.body).toMatchObject({ error: { message: expect.stringContaining('(member of: #fallback)') } });
    });

    it('resolves an invocation channel id from the live membership', async () => {
      const res = await stack.rpc<{ session: string }>(
        `${T}/InvokeTrigger`,
        { name: 'triggers/incidents-posted', chat: { team_id: 'T010', channel_name: 'incidents', event_ts: '1700000100.000100', user_id: 'U0ALICE', text: 'checkout is slow' } },
        MACHINE,
      );
      expect(res.status).toBe(200);
      const session = await stack.rpc<{ session: { origin?: { chat?: Record<string, string> } } }>(`${A}/GetSession`, { name: res.body.session });
      expect(session.body.session.origin?.chat).toMatchObject({ channelName: '#incidents', channelId: 'C0INC' });
    });
  });

  describe('chat handles named by e-mail', () => {
    it('resolves the handle through users.lookupByEmail, so a mention of its user fires its trigger', async () => {
      const created = await stack.rpc(`${T}/CreateTrigger`, {
        trigger_id: 'oncall-mentioned',
        trigger: { agent: 'agents/responder', configuration: { chat_agent_mentioned: { chat_handle: 'connections/slackbot/chat-handles/oncall', channels: ['#incidents'] } } },
      });
      expect(created.status).toBe(200);
      const body = JSON.stringify({
        type: 'event_callback',
        team_id: 'T010',
        event_id: 'EvOncall1',
        event: { type: 'app_mention', channel: 'C0INC', user: 'U0ALICE', text: '<@U0ONCALL> is checkout down?', ts: '1700000200.000100', event_ts: '1700000200.000100' },
      });
      const timestamp = String(Math.floor(Date.now() / 1000));
      const res = await stack.request<{ dispatched: Array<{ trigger: string; session?: string }> }>('POST', '/v1/chat-connections:handleEvent', {
        as: MACHINE,
        rawBody: body,
        headers: { 'x-slack-request-timestamp': timestamp, 'x-slack-signature': chatSignature('slackbot-signing', timestamp, body) },
      });
      expect(res.status).toBe(200);
      // The chat_message_posted triggers of #incidents fire on the same message; the mention fires the handle's.
      expect(res.body.dispatched).toContainEqual({ trigger: 'triggers/oncall-mentioned', session: expect.any(String) });
      expect(slack.callsOf('users.lookupByEmail').at(-1)?.params.email).toBe('oncall@acme.test');
    });
  });

  describe('TOOL_CHAT_POST_MESSAGE', () => {
    beforeAll(async () => {
      const agent = { prompt: 'You post updates.', connections: [{ name: 'connections/slackbot', enabled_tools: ['TOOL_CHAT_POST_MESSAGE'] }] };
      expect((await stack.rpc(`${A}/CreateAgent`, { agent_id: 'poster', agent })).status).toBe(200);
    });

    async function toolResult(text: string): Promise<Record<string, unknown>> {
      const write = await stack.rpc<{ session: string }>(`${A}/Write`, { parent: 'agents/poster', messages: [{ '@type': ACTIVITY, user: { text: { text } } }] });
      expect(write.status).toBe(200);
      const read = await eventually(async () => {
        const res = await stack.rpc<ReadAnswer>(`${A}/Read`, { session: write.body.session });
        return res.body.status === 'STATUS_WAITING' && res.body.sessionLength === 4 ? res.body : undefined;
      }, 30_000);
      const results = (read.messages[2].user as { toolResults: Array<{ content: string }> }).toolResults;
      return JSON.parse(results[0].content) as Record<string, unknown>;
    }

    it('posts to a channel the bot is a member of, and Slack records the message', async () => {
      const result = await toolResult('Tell the channel.\n/tool TOOL_CHAT_POST_MESSAGE {"channel": "#incidents", "text": "Checkout is degraded since 10:02"}');
      expect(result).toEqual({ channel: '#incidents', channelId: 'C0INC', ts: expect.stringMatching(/^\d+\.\d+$/) });
      expect(slack.posted.at(-1)).toMatchObject({ channel: 'C0INC', text: 'Checkout is degraded since 10:02', ts: result.ts });
      expect(slack.callsOf('chat.postMessage').at(-1)?.authorization).toBe(`Bearer ${BOT_TOKEN}`);
    });

    it('refuses a channel the bot is not a member of, and posts nothing', async () => {
      const before = slack.posted.length;
      const result = await toolResult('/tool TOOL_CHAT_POST_MESSAGE {"channel": "#stale", "text": "hello"}');
      expect(result).toEqual({ error: 'NOT_FOUND', message: "the bot of connections/slackbot is not a member of '#stale'; invite it to the channel first" });
      expect(slack.posted).toHaveLength(before);
      expect(JSON.stringify(result)).not.toContain(BOT_TOKEN);
    });
  });

  describe('change-monitor notifications (the caller\'s own setup)', () => {
    interface Setup {
      name: string;
      user: string;
      chatDmEnabled: boolean;
      codehostLogin?: string;
      verifiedChatDestination?: Record<string, string>;
    }
    const mine = async (as?: typeof BOB) => stack.rpc<{ changeMonitorSetup: Setup }>(`${CM}/GetMyChangeMonitorSetup`, {}, as);

    it('answers the defaults of a setup never written', async () => {
      const res = await mine();
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ changeMonitorSetup: { name: 'change-monitor-setups/alice', user: 'users/alice', chatDmEnabled: false } });
    });

    it('refuses to enable DMs before a test DM verified a destination', async () => {
      const res = await stack.rpc(`${CM}/UpdateMyChangeMonitorNotificationPreference`, { chat_dm_enabled: true });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: { status: 'FAILED_PRECONDITION', details: expect.arrayContaining([expect.objectContaining({ reason: 'CHAT_DM_NOT_VERIFIED' })]) } });
      expect((await mine()).body.changeMonitorSetup.chatDmEnabled).toBe(false);
    });

    it('verifies by e-mail: a test DM through the port (conversations.open, chat.postMessage), and the destination it reached is stored', async () => {
      const res = await stack.rpc<{ changeMonitorSetup: Setup; messageTs: string }>(`${CM}/VerifyMyChangeMonitorSlackDM`, { chat_connection: 'connections/slackbot', email: 'alice@acme.test' });
      expect(res.status).toBe(200);
      const open = slack.callsOf('conversations.open').at(-1);
      expect(open?.params.users).toBe('U0ALICE');
      const dm = slack.posted.at(-1);
      expect(dm).toMatchObject({ channel: expect.stringMatching(/^D/), ts: res.body.messageTs, text: expect.stringContaining('users/alice') });
      expect(res.body.changeMonitorSetup).toEqual({
        name: 'change-monitor-setups/alice',
        user: 'users/alice',
        chatDmEnabled: false,
        verifiedChatDestination: { chatConnection: 'connections/slackbot', chatUserId: 'U0ALICE', channelId: dm?.channel, verifyTime: expect.any(String) },
        createTime: expect.any(String),
        updateTime: expect.any(String),
      });
      expect((await mine()).body.changeMonitorSetup.verifiedChatDestination?.channelId).toBe(dm?.channel);
    });

    it('answers NOT_FOUND for an unknown user, FAILED_PRECONDITION for a connection without a bot token, and stores nothing then', async () => {
      const before = slack.posted.length;
      const unknown = await stack.rpc(`${CM}/VerifyMyChangeMonitorSlackDM`, { chat_connection: 'connections/slackbot', email: 'nobody@acme.test' });
      expect(unknown.status).toBe(404);
      const tokenless = await stack.rpc(`${CM}/VerifyMyChangeMonitorSlackDM`, { chat_connection: 'connections/slack', chat_user_id: 'U0ALICE' });
      expect(tokenless.status).toBe(400);
      expect(tokenless.body).toMatchObject({ error: { status: 'FAILED_PRECONDITION', details: expect.arrayContaining([expect.objectContaining({ reason: 'CHAT_NOT_CONFIGURED' })]) } });
      expect(slack.posted).toHaveLength(before);
      expect((await mine()).body.changeMonitorSetup.verifiedChatDestination?.chatUserId).toBe('U0ALICE');
    });

    it('enables DMs once verified and links the code-host login (lowercased); a later verify reuses the verified user', async () => {
      const res = await stack.rpc<{ changeMonitorSetup: Setup }>(`${CM}/UpdateMyChangeMonitorNotificationPreference`, { chat_dm_enabled: true, codehost_login: 'Alice-GH' });
      expect(res.status).toBe(200);
      expect(res.body.changeMonitorSetup).toMatchObject({ chatDmEnabled: true, codehostLogin: 'alice-gh', verifiedChatDestination: { chatUserId: 'U0ALICE' } });
      const again = await stack.rpc<{ changeMonitorSetup: Setup }>(`${CM}/VerifyMyChangeMonitorSlackDM`, { chat_connection: 'connections/slackbot' });
      expect(again.status).toBe(200);
      expect(again.body.changeMonitorSetup).toMatchObject({ chatDmEnabled: true, codehostLogin: 'alice-gh' });
      expect(slack.callsOf('users.info').at(-1)?.params.user).toBe('U0ALICE');
      const bad = await stack.rpc(`${CM}/UpdateMyChangeMonitorNotificationPreference`, { chat_dm_enabled: false, codehost_login: 'no spaces' });
      expect(bad.status).toBe(400);
    });

    it('is per member and per organization: another member sees their own, another organization cannot use this one\'s connection, a service account has none', async () => {
      expect((await mine(BOB)).body).toEqual({ changeMonitorSetup: { name: 'change-monitor-setups/bob', user: 'users/bob', chatDmEnabled: false } });
      const bobVerifies = await stack.rpc(`${CM}/VerifyMyChangeMonitorSlackDM`, { chat_connection: 'connections/slackbot', chat_user_id: 'U0BOB' }, BOB);
      expect(bobVerifies.status).toBe(200);
      expect((await mine()).body.changeMonitorSetup.verifiedChatDestination?.chatUserId).toBe('U0ALICE');
      expect((await mine(GINA)).body.changeMonitorSetup).toEqual({ name: 'change-monitor-setups/gina', user: 'users/gina', chatDmEnabled: false });
      const foreign = await stack.rpc(`${CM}/VerifyMyChangeMonitorSlackDM`, { chat_connection: 'connections/slackbot', chat_user_id: 'U0ALICE' }, GINA);
      expect(foreign.status).toBe(404);
      const account = await mine(DEPLOYER);
      expect(account.status).toBe(400);
      expect(account.body).toMatchObject({ error: { status: 'FAILED_PRECONDITION' } });
    });
  });
});
