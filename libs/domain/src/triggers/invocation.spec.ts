import { DomainError } from '../shared/domain-error';
import type { JsonObject } from '../shared/json-path';
import { chatDetailsOf } from './chat-connection';
import { chatTriggersFired, mentionsOf } from './chat-routing';
import { checkChatInvocation, checkInvokeArms, idempotencyOccasion, isRecentSeedOf, occasionSessionId } from './invocation';
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

  it('strips user and user-group mentions from the text', () => {
    const { userIds, stripped } = mentionsOf('<@U0SVC> hi <@U0TRI|triage>  there <!subteam^S1|@ops>');
    expect([...userIds]).toEqual(['U0SVC', 'U0TRI']);
    expect(stripped).toBe('hi there');
  });

  it('fires message triggers of listed channels, thread replies only when included', () => {
    expect(fired(message('x'), [posted(['#deploys']), posted(['#ops'])])).toEqual(['triggers/posted']);
    const reply = message('x', { threadTs: '1.0' });
    expect(fired(reply, [posted(['#deploys'])])).toEqual(['triggers/posted']);
    expect(fired(reply, [posted(['#deploys'], { includeThreadReplies: false })])).toEqual([]);
    expect(fired(message('x', { threadTs: '5.5' }), [posted(['#deploys'], { includeThreadReplies: false })])).toEqual(['triggers/posted']);
    expect(fired(message('x', { channelId: 'C404' }), [posted(['#deploys'])])).toEqual([]);
  });

  it('fires mention triggers; the default handle yields to a custom one', () => {
    const triggers = [mentioned('svc'), mentioned('triage'), mentioned('svc', ['#ops'])];
    expect(fired(message('<@U0SVC> hi'), triggers)).toEqual(['triggers/svc']);
    expect(fired(message('<@U0TRI> hi'), triggers)).toEqual(['triggers/triage']);
    expect(fired(message('<@U0SVC> <@U0TRI> hi'), triggers)).toEqual(['triggers/triage']);
    expect(fired(message('no mention'), triggers)).toEqual([]);
    const [context] = chatTriggersFired(message('<@U0TRI> look'), chatDetailsOf(CONNECTION), triggers);
    expect(context.chat).toMatchObject({ channelName: '#deploys', text: 'look', eventTs: '5.5', threadTs: '' });
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
