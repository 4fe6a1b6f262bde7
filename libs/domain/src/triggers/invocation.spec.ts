import { DomainError } from '../shared/domain-error';
import type { JsonObject } from '../shared/json-path';
import { chatDetailsOf } from './chat-connection';
import { chatMessageOf, chatTriggersFired, mentionsOf } from './chat-routing';
import { chatMessageOccasion, checkChatInvocation, checkInvokeArms, idempotencyOccasion, isRecentSeedOf, occasionSessionId, workspaceOrganization } from './invocation';
import { parseRowPredicate, rowMatches } from './row-predicate';

const CONNECTION: JsonObject = {
  name: 'connections/chatops',
  connectionType: 'CONNECTION_TYPE_CHAT',
  connectionDetails: {
    chat: {
      team_id: 'T2',
      bot_channels: [{ name: '#ops', id: 'C1' }, { name: '#deploys', id: 'C2' }],
      handles: [{ id: 'svc', user_id: 'U0SVC', default: true }, { id: 'triage', user_id: 'U0TRI' }],
    },
  },
};
const posted = (channels: string[], over: JsonObject = {}): JsonObject => ({
  name: 'triggers/posted',
  configuration: { chatMessagePosted: { chatConnection: 'connections/chatops', channels, includeThreadReplies: true, ...over } },
});
const mentioned = (handle: string, channels: string[] = []): JsonObject => ({
  name: `triggers/${handle}`,
  configuration: { chatAgentMentioned: { chatHandle: `connections/chatops/chat-handles/${handle}`, channels } },
});
const failsWith = (run: () => unknown, code: string, message: RegExp) => {
  let error: unknown;
  try {
    run();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(DomainError);
  expect(error).toMatchObject({ code, message: expect.stringMatching(message) });
};

describe('InvokeTrigger rules', () => {
  it('takes exactly one of message and chat', () => {
    expect(checkInvokeArms('hi', undefined)).toBe('message');
    expect(checkInvokeArms(undefined, {})).toBe('chat');
    failsWith(() => checkInvokeArms(undefined, undefined), 'INVALID_ARGUMENT', /exactly one/);
    failsWith(() => checkInvokeArms('hi', {}), 'INVALID_ARGUMENT', /exactly one/);
  });

  it('judges the chat arm by the spec table, row by row', () => {
    const chat = { channelName: 'deploys', eventTs: '1.1' };
    failsWith(() => checkChatInvocation({ name: 'triggers/m', configuration: { manual: {} } }, chat, CONNECTION), 'INVALID_ARGUMENT', /only by chat_message_posted and chat_agent_mentioned/);
    failsWith(() => checkChatInvocation(posted(['#deploys']), { ...chat, chatConnection: 'connections/other' }, CONNECTION), 'PERMISSION_DENIED', /is not the connection/);
    failsWith(() => checkChatInvocation(posted(['#deploys']), { eventTs: '1.1' }, CONNECTION), 'INVALID_ARGUMENT', /channel_name is required/);
    failsWith(() => checkChatInvocation(posted(['#deploys']), { ...chat, channelName: '#' }, CONNECTION), 'INVALID_ARGUMENT', /channel_name is required/);
    failsWith(() => checkChatInvocation(posted(['#deploys']), { ...chat, channelName: 'ops' }, CONNECTION), 'PERMISSION_DENIED', /'#ops' is not one of the channels/);
    failsWith(() => checkChatInvocation(mentioned('triage'), { ...chat, channelName: 'general' }, CONNECTION), 'NOT_FOUND', /'#general' is not among/);
    expect(checkChatInvocation(posted(['#deploys']), { ...chat, channelName: '#Deploys' }, CONNECTION)).toMatchObject({
      chatConnection: 'connections/chatops',
      channelName: '#deploys',
      channelId: 'C2',
      threadTs: '1.1',
    });
    expect(checkChatInvocation(mentioned('triage'), { ...chat, threadTs: '0.5' }, CONNECTION).threadTs).toBe('0.5');
  });

  it('resolves the channel from the live membership when the chat port read it', () => {
    const chat = { channelName: 'general', eventTs: '1.1' };
    expect(checkChatInvocation(mentioned('triage'), chat, CONNECTION, [{ name: '#general', id: 'C77' }])).toMatchObject({ channelName: '#general', channelId: 'C77' });
    failsWith(() => checkChatInvocation(posted(['#deploys']), { ...chat, channelName: 'deploys' }, CONNECTION, [{ name: '#general', id: 'C77' }]), 'NOT_FOUND', /'#deploys' is not among/);
  });

  it('machine credentials act for the one organization whose chat connection belongs to the workspace', () => {
    expect(workspaceOrganization({ teamId: 'T2' }, ['acme', 'acme'])).toBe('acme');
    failsWith(() => workspaceOrganization({ channelName: '#ops' }, ['acme']), 'INVALID_ARGUMENT', /team_id is required with machine credentials/);
    failsWith(() => workspaceOrganization({ teamId: 'T9' }, []), 'NOT_FOUND', /no chat connection belongs to workspace 'T9'/);
    failsWith(() => workspaceOrganization({ teamId: 'T2' }, ['acme', 'globex']), 'FAILED_PRECONDITION', /more than one organization/);
  });

  it('a chat message is its own occasion: workspace, resolved channel id and message ts', () => {
    const chat = { teamId: 'T2', channelName: '#deploys', channelId: 'C2', threadTs: '1.1', eventTs: '1.1' };
    expect(chatMessageOccasion(chat)).toBe('chat-message|T2|C2|1.1');
    expect(chatMessageOccasion({ ...chat, eventTs: '' })).toBeUndefined();
  });

  it('derives one session per occasion; an idempotency key finds only a recent seed with the same key', () => {
    const now = Date.parse('2024-05-01T10:07:00Z');
    expect(occasionSessionId('acme', 'triggers/t', idempotencyOccasion('k', now))).toBe(occasionSessionId('acme', 'triggers/t', idempotencyOccasion('k', now + 60_000)));
    expect(occasionSessionId('acme', 'triggers/t', idempotencyOccasion('k', now))).not.toBe(occasionSessionId('globex', 'triggers/t', idempotencyOccasion('k', now)));
    expect(idempotencyOccasion('k', now, -1)).not.toBe(idempotencyOccasion('k', now));
    const session = { name: 's', createTime: '2024-05-01T09:58:00Z', origin: { trigger: 'triggers/t', idempotencyKey: 'k' } };
    expect(isRecentSeedOf(session, 'k', now)).toBe(true);
    expect(isRecentSeedOf(session, 'other', now)).toBe(false);
    expect(isRecentSeedOf(session, 'k', now + 15 * 60_000)).toBe(false);
    expect(isRecentSeedOf({ ...session, deleteTime: 'x' }, 'k', now)).toBe(false);
    expect(isRecentSeedOf(null, 'k', now)).toBe(false);
  });
});

describe('chat routing', () => {
  const message = (text: string, over: JsonObject = {}) => ({ connection: 'connections/chatops', teamId: 'T2', channelId: 'C2', userId: 'U9', text, eventTs: '5.5', ...over });
  const fired = (msg: ReturnType<typeof message>, triggers: JsonObject[]) => chatTriggersFired(msg, chatDetailsOf(CONNECTION), triggers).map((f) => f.trigger);

  const BOTS = new Set(['U0SVC', 'U0TRI']);

  it('reads a handle named by e-mail with no user id yet: it exists for triggers and fires once its id is known', () => {
    const byEmail: JsonObject = { ...CONNECTION, connectionDetails: { chat: { team_id: 'T2', bot_channels: [{ name: '#deploys', id: 'C2' }], handles: [{ id: 'oncall', email: 'oncall@x.test' }] } } };
    const details = chatDetailsOf(byEmail);
    expect(details.handles).toEqual([{ id: 'oncall', userId: '', email: 'oncall@x.test', isDefault: false }]);
    const oncall = mentioned('oncall');
    // Unresolved, its empty id is mentioned by no one (not even by a text with an empty mention).
    expect(chatTriggersFired(message('<@> <@U0ONC> help'), details, [oncall])).toEqual([]);
    const resolved = { ...details, handles: [{ ...details.handles[0], userId: 'U0ONC' }] };
    expect(chatTriggersFired(message('<@U0ONC> help'), resolved, [oncall]).map((f) => f.trigger)).toEqual(['triggers/oncall']);
  });

  it('strips bot (handle) and user-group mentions from the text; a person’s mention stays', () => {
    const { userIds, stripped } = mentionsOf('<@U0SVC> hi <@U0TRI|triage>  there <!subteam^S1|@ops>, ask <@U42> or <@U43|ann>', BOTS);
    expect([...userIds]).toEqual(['U0SVC', 'U0TRI', 'U42', 'U43']);
    expect(stripped).toBe('hi there, ask <@U42> or <@U43|ann>');
    // Links, channels and special mentions are not bot or group mentions; a stray '<' opens nothing.
    expect(mentionsOf('see <https://x.example|x> in <#C1|ops> <!here> a < b <@U0SVC>', BOTS).stripped).toBe('see <https://x.example|x> in <#C1|ops> <!here> a < b');
    expect(mentionsOf('<@U0SVC><!subteam^S1>', BOTS).stripped).toBe('');
    expect(mentionsOf('line one <@U0SVC>\nline two', BOTS).stripped).toBe('line one\nline two');
    expect(mentionsOf('hi <@U0SVC> <!subteam^S1>  there', BOTS).stripped).toBe('hi there');
    expect(mentionsOf('<@u0svc> <@U0SVC|>x', BOTS)).toEqual({ userIds: new Set(['U0SVC']), stripped: '<@u0svc>x' });
  });

  it('parses mentions in time linear in the text, whatever it holds', () => {
    const inputs = ['<'.repeat(400_000), '<@U1|'.repeat(100_000), '<@'.repeat(200_000) + '>', '<!subteam^S1 '.repeat(40_000), '<@U0SVC>'.repeat(50_000)];
    for (const text of inputs) {
      const started = process.hrtime.bigint();
      mentionsOf(text, BOTS);
      expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(500);
    }
  });

  it('takes ordinary messages (plain, thread_broadcast, file_share, me_message) and no edit, deletion or bot post', () => {
    const envelope = (event: JsonObject): JsonObject => ({ type: 'event_callback', team_id: 'T2', event: { type: 'message', channel: 'C2', user: 'U9', text: 'hi', ts: '5.5', ...event } });
    expect(chatMessageOf(envelope({}), 'connections/chatops')).toEqual({ connection: 'connections/chatops', teamId: 'T2', channelId: 'C2', userId: 'U9', text: 'hi', eventTs: '5.5' });
    for (const subtype of ['file_share', 'me_message']) expect(chatMessageOf(envelope({ subtype }), 'connections/chatops')).toMatchObject({ text: 'hi' });
    expect(chatMessageOf(envelope({ subtype: 'thread_broadcast', thread_ts: '1.0' }), 'connections/chatops')).toMatchObject({ threadTs: '1.0', broadcast: true });
    for (const subtype of ['message_changed', 'message_deleted', 'bot_message', 'channel_join', 'channel_topic']) {
      expect(chatMessageOf(envelope({ subtype }), 'connections/chatops')).toBeNull();
    }
    expect(chatMessageOf(envelope({ bot_id: 'B1' }), 'connections/chatops')).toBeNull();
    expect(chatMessageOf(envelope({ subtype: 'file_share', bot_id: 'B1' }), 'connections/chatops')).toBeNull();
    expect(chatMessageOf({ ...envelope({}), event: { type: 'reaction_added' } }, 'connections/chatops')).toBeNull();
  });

  it('fires message triggers of listed channels, thread replies only when included', () => {
    expect(fired(message('x'), [posted(['#deploys']), posted(['#ops'])])).toEqual(['triggers/posted']);
    const reply = message('x', { threadTs: '1.0' });
    expect(fired(reply, [posted(['#deploys'])])).toEqual(['triggers/posted']);
    expect(fired(reply, [posted(['#deploys'], { includeThreadReplies: false })])).toEqual([]);
    expect(fired(message('x', { threadTs: '5.5' }), [posted(['#deploys'], { includeThreadReplies: false })])).toEqual(['triggers/posted']);
    expect(fired(message('x', { channelId: 'C404' }), [posted(['#deploys'])])).toEqual([]);
    // A reply also sent to the channel is a message in the channel.
    expect(fired(message('x', { threadTs: '1.0', broadcast: true }), [posted(['#deploys'], { includeThreadReplies: false })])).toEqual(['triggers/posted']);
  });

  it('fires mention triggers; the default handle yields to a custom one', () => {
    const triggers = [mentioned('svc'), mentioned('triage'), mentioned('svc', ['#ops'])];
    expect(fired(message('<@U0SVC> hi'), triggers)).toEqual(['triggers/svc']);
    expect(fired(message('<@U0TRI> hi'), triggers)).toEqual(['triggers/triage']);
    expect(fired(message('<@U0SVC> <@U0TRI> hi'), triggers)).toEqual(['triggers/triage']);
    expect(fired(message('no mention'), triggers)).toEqual([]);
    const [context] = chatTriggersFired(message('<@U0TRI> look at <@U42>'), chatDetailsOf(CONNECTION), triggers);
    expect(context.chat).toMatchObject({ channelName: '#deploys', text: 'look at <@U42>', eventTs: '5.5', threadTs: '' });
  });
});

describe('row predicates', () => {
  const matches = (predicate: string, row: JsonObject) => rowMatches(parseRowPredicate(predicate), row);

  it('evaluates comparisons, arithmetic, IN, BETWEEN, LIKE, IS NULL and the logical operators', () => {
    const row = { status: 'failed', amount: 150, region: 'eu', sku: 'AB-1', note: null, archived: false };
    expect(matches("status = 'failed' AND amount > 100", row)).toBe(true);
    expect(matches("status = 'failed' AND amount > 200", row)).toBe(false);
    expect(matches('amount * 2 = 300 OR amount < 0', row)).toBe(true);
    expect(matches("region IN ('us', 'eu')", row)).toBe(true);
    expect(matches("region NOT IN ('us', 'eu')", row)).toBe(false);
    expect(matches('amount BETWEEN 100 AND 200', row)).toBe(true);
    expect(matches("sku LIKE 'A_-%'", row)).toBe(true);
    expect(matches("sku NOT LIKE 'B%'", row)).toBe(true);
    expect(matches('note IS NULL AND NOT archived', row)).toBe(true);
    expect(matches('missing = 1', row)).toBe(false);
    expect(matches('NOT (missing = 1)', row)).toBe(true);
  });
});
