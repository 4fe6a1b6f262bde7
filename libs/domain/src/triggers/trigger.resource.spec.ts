import type { Actor } from '../shared/decider';
import type { JsonObject } from '../shared/json-path';
import type { Resource, ResourceCommand, ResourceEvent } from '../shared/resource';
import { resourceDecider } from '../shared/resource.decider';
import { givenFor } from '../shared/testing';
import { durationMillis } from './durations';
import { triggerSpec } from './trigger.resource';

const given = givenFor(resourceDecider(triggerSpec));
const NOW = '2024-05-01T10:00:00Z';
const actor: Actor = { org: 'acme', actor: 'users/al', subject: 'users/al', permissions: ['AGENTS_WRITE'], now: NOW };
const AGENT: Resource = { name: 'agents/watcher' };
const CHATOPS: Resource = {
  name: 'connections/chatops',
  connectionType: 'CONNECTION_TYPE_CHAT',
  connectionDetails: { chat: { team_id: 'T2', bot_channels: [{ name: '#ops', id: 'C1' }], handles: [{ id: 'triage', user_id: 'U1' }] } },
};
const WAREHOUSE: Resource = { name: 'connections/warehouse', connectionType: 'CONNECTION_TYPE_SQLDB' };
const refs = new Map<string, Resource | null>([
  ['agents/watcher', AGENT],
  ['connections/chatops', CHATOPS],
  ['connections/warehouse', WAREHOUSE],
]);
const create = (configuration: unknown, extra: JsonObject = {}): ResourceCommand => ({
  type: 'Create',
  actor,
  id: 't1',
  resource: { agent: 'agents/watcher', configuration, ...extra },
  refs,
});
const created = (given_: ReturnType<typeof given>, command: ResourceCommand) => {
  let stored: ResourceEvent[] = [];
  given_.when(command).then([expect.objectContaining({ type: 'TriggerCreated' }) as ResourceEvent]);
  stored = resourceDecider(triggerSpec).decide(command, { resource: null, deleted: false });
  return (stored[0].data as { resource: Resource }).resource;
};

describe('triggers: configuration variants', () => {
  it('stores a manual trigger, enabled by default', () => {
    expect(created(given(), create({ manual: {} }))).toMatchObject({ name: 'triggers/t1', enabled: true, configuration: { manual: {} } });
  });

  it('needs an existing agent and exactly one known variant', () => {
    given().when(create({ manual: {} }, { agent: 'agents/gone' })).thenFails('INVALID_ARGUMENT', /refers to 'agents\/gone', which does not exist/);
    given().when(create({ manual: {} }, { agent: 'watcher' })).thenFails('INVALID_ARGUMENT', /^agent is required and must look like 'agents\/\{agent\}'/);
    given().when(create(undefined)).thenFails('INVALID_ARGUMENT', /^configuration is required/);
    given().when(create({})).thenFails('INVALID_ARGUMENT', /exactly one of cron, manual, row, post_deploy, chat_message_posted, chat_agent_mentioned \(got 0\)/);
    given().when(create({ manual: {}, cron: { schedule: '* * * * *' } })).thenFails('INVALID_ARGUMENT', /\(got 2\)/);
    given().when(create({ webhook: {} })).thenFails('INVALID_ARGUMENT', /^configuration\.webhook is not a trigger variant/);
    given().when(create({ manual: { x: 1 } })).thenFails('INVALID_ARGUMENT', /^configuration\.manual takes no fields \(got x\)/);
    given().when(create({ cron: 'daily' })).thenFails('INVALID_ARGUMENT', /^configuration\.cron must be an object/);
  });

  it('cron: a cron expression read in an IANA time zone (UTC when omitted)', () => {
    expect(created(given(), create({ cron: { schedule: '*/5 * * * *' } })).configuration).toEqual({ cron: { schedule: '*/5 * * * *', timezone: 'UTC' } });
    created(given(), create({ cron: { schedule: '0 0 9 * * MON-FRI', timezone: 'America/New_York' } }));
    given().when(create({ cron: { schedule: '' } })).thenFails('INVALID_ARGUMENT', /^configuration\.cron\.schedule is required/);
    given().when(create({ cron: { schedule: '0 25 * * *' } })).thenFails('INVALID_ARGUMENT', /^configuration\.cron\.schedule is not a valid cron expression/);
    given().when(create({ cron: { schedule: 'every minute' } })).thenFails('INVALID_ARGUMENT', /^configuration\.cron\.schedule is not a valid cron expression/);
    given().when(create({ cron: { schedule: '* * * * *', timezone: 'Europe/Nowhere' } })).thenFails('INVALID_ARGUMENT', /^configuration\.cron\.timezone must be an IANA time zone/);
  });

  it('row: a table name, a boolean predicate over columns and literals, a cooldown', () => {
    const row = (over: JsonObject) => create({ row: { tableName: 'orders', predicate: "status = 'failed'", cooldown: '60s', ...over } });
    created(given(), row({}));
    created(given(), row({ predicate: "amount * 2 >= 10 AND (region IN ('eu', 'us') OR note IS NULL) AND NOT archived AND sku LIKE 'A%'" }));
    given().when(row({ tableName: '1orders' })).thenFails('INVALID_ARGUMENT', /^configuration\.row\.table_name must be a table name/);
    given().when(row({ predicate: '' })).thenFails('INVALID_ARGUMENT', /^configuration\.row\.predicate is required/);
    given().when(row({ predicate: 'x'.repeat(2001) })).thenFails('INVALID_ARGUMENT', /^configuration\.row\.predicate is longer than 2000 characters/);
    given().when(row({ predicate: 'amount +' })).thenFails('INVALID_ARGUMENT', /^configuration\.row\.predicate is not a valid SQL expression/);
    given().when(row({ predicate: 'amount + 1' })).thenFails('INVALID_ARGUMENT', /^configuration\.row\.predicate must be a boolean expression; found operator \+/);
    given().when(row({ predicate: "'yes'" })).thenFails('INVALID_ARGUMENT', /must be a boolean expression/);
    given().when(row({ predicate: 'a = 1 ORDER BY a' })).thenFails('INVALID_ARGUMENT', /must be a single boolean expression/);
    given().when(row({ predicate: 'a = (SELECT 1)' })).thenFails('INVALID_ARGUMENT', /may use only columns, literals/);
    given().when(row({ predicate: 'upper(a) = 1' })).thenFails('INVALID_ARGUMENT', /may use only columns, literals/);
    given().when(row({ predicate: 'o.a = 1' })).thenFails('INVALID_ARGUMENT', /columns are plain names/);
    given().when(row({ cooldown: '60' })).thenFails('INVALID_ARGUMENT', /^configuration\.row\.cooldown must be a duration in decimal seconds/);
    given().when(row({ cooldown: '-1s' })).thenFails('INVALID_ARGUMENT', /^configuration\.row\.cooldown must be a duration/);
    given().when(row({ cooldown: '2592001s' })).thenFails('INVALID_ARGUMENT', /^configuration\.row\.cooldown is longer than the limit of 2592000s/);
    // An omitted duration is 0s (an unset proto3 Duration), stored so every reader sees it.
    expect(created(given(), row({ cooldown: undefined })).configuration).toEqual({ row: { tableName: 'orders', predicate: "status = 'failed'", cooldown: '0s' } });
    expect(created(given(), row({ cooldown: null })).configuration).toMatchObject({ row: { cooldown: '0s' } });
  });

  it('post_deploy: owner/repo, an environment, a sha and a delay', () => {
    const post = (over: JsonObject) => create({ postDeploy: { repository: 'acme/shop', environment: 'prod', sha: 'deadbeef', delay: '0.5s', ...over } });
    created(given(), post({}));
    given().when(post({ repository: 'acme/shop/extra' })).thenFails('INVALID_ARGUMENT', /^configuration\.post_deploy\.repository must be 'owner\/repo'/);
    given().when(post({ environment: undefined })).thenFails('INVALID_ARGUMENT', /^configuration\.post_deploy\.environment is required/);
    given().when(post({ sha: 'xyz' })).thenFails('INVALID_ARGUMENT', /^configuration\.post_deploy\.sha must be a commit sha/);
    given().when(post({ delay: '10 s' })).thenFails('INVALID_ARGUMENT', /^configuration\.post_deploy\.delay must be a duration/);
    expect(created(given(), post({ delay: undefined })).configuration).toEqual({ postDeploy: { repository: 'acme/shop', environment: 'prod', sha: 'deadbeef', delay: '0s' } });
  });

  it('chat_message_posted: a chat connection, #channels the bot is in, include_thread_replies default true', () => {
    const posted = (over: JsonObject) => create({ chatMessagePosted: { chatConnection: 'connections/chatops', channels: ['#ops'], ...over } });
    expect(created(given(), posted({})).configuration).toEqual({ chatMessagePosted: { chatConnection: 'connections/chatops', channels: ['#ops'], includeThreadReplies: true } });
    expect(created(given(), posted({ includeThreadReplies: false })).configuration).toMatchObject({ chatMessagePosted: { includeThreadReplies: false } });
    given().when(posted({ chatConnection: 'chatops' })).thenFails('INVALID_ARGUMENT', /^configuration\.chat_message_posted\.chat_connection must be 'connections\/\{connection_id\}'/);
    given().when(posted({ chatConnection: 'connections/gone' })).thenFails('INVALID_ARGUMENT', /'connections\/gone', which does not exist/);
    given().when(posted({ chatConnection: 'connections/warehouse' })).thenFails('INVALID_ARGUMENT', /^configuration\.chat_message_posted\.chat_connection must name a chat connection/);
    given().when(posted({ channels: [] })).thenFails('INVALID_ARGUMENT', /channels must list at least one channel/);
    given().when(posted({ channels: '#ops' })).thenFails('INVALID_ARGUMENT', /channels must be a list/);
    // Normalized as the chat invoke context normalizes channel_name: `ops` and `#Ops` are `#ops`.
    expect(created(given(), posted({ channels: ['Ops'] })).configuration).toMatchObject({ chatMessagePosted: { channels: ['#ops'] } });
    expect(created(given(), posted({ channels: ['#Ops'] })).configuration).toMatchObject({ chatMessagePosted: { channels: ['#ops'] } });
    given().when(posted({ channels: ['#ops team'] })).thenFails('INVALID_ARGUMENT', /channels\[0\] must be a '#name' channel \(lowercase\)/);
    given().when(posted({ channels: ['#ops', '#ops'] })).thenFails('INVALID_ARGUMENT', /channels\[1\]: '#ops' is listed twice/);
    given().when(posted({ channels: ['#ops', 'OPS'] })).thenFails('INVALID_ARGUMENT', /channels\[1\]: '#ops' is listed twice/);
    given().when(posted({ channels: ['#dev'] })).thenFails('INVALID_ARGUMENT', /channels\[0\]: the bot of connections\/chatops is not a member of '#dev' \(member of: #ops\)/);
    given().when(posted({ channels: Array.from({ length: 101 }, (_, i) => `#c${i}`) })).thenFails('INVALID_ARGUMENT', /more than 100 channels/);
    given().when(posted({ includeThreadReplies: 'no' })).thenFails('INVALID_ARGUMENT', /include_thread_replies must be a boolean/);
  });

  it('chat channels: the live membership in the facts wins over the configured bot_channels', () => {
    const live = { chatMembership: { 'connections/chatops': [{ name: '#dev', id: 'C9' }] } };
    const posted = (channels: string[]): ResourceCommand => ({ ...create({ chatMessagePosted: { chatConnection: 'connections/chatops', channels } }), facts: live } as ResourceCommand);
    created(given(), posted(['#dev']));
    given().when(posted(['#ops'])).thenFails('INVALID_ARGUMENT', /not a member of '#ops' \(member of: #dev\)/);
    // Another connection's membership does not stand in for this one's: its configuration does.
    const elsewhere = { ...create({ chatMessagePosted: { chatConnection: 'connections/chatops', channels: ['#ops'] } }), facts: { chatMembership: { 'connections/other': [] } } } as ResourceCommand;
    created(given(), elsewhere);
  });

  it('chat_agent_mentioned: a handle of a chat connection, channels optional', () => {
    const mentioned = (over: JsonObject) => create({ chatAgentMentioned: { chatHandle: 'connections/chatops/chat-handles/triage', ...over } });
    expect(created(given(), mentioned({})).configuration).toEqual({ chatAgentMentioned: { chatHandle: 'connections/chatops/chat-handles/triage', channels: [] } });
    created(given(), mentioned({ channels: ['#ops'] }));
    expect(created(given(), mentioned({ channels: ['ops'] })).configuration).toMatchObject({ chatAgentMentioned: { channels: ['#ops'] } });
    given().when(mentioned({ chatHandle: 'connections/chatops/handles/triage' })).thenFails('INVALID_ARGUMENT', /^configuration\.chat_agent_mentioned\.chat_handle must look like/);
    given().when(mentioned({ chatHandle: 'connections/chatops/chat-handles/ghost' })).thenFails('INVALID_ARGUMENT', /ghost', which does not exist \(handles of connections\/chatops: triage\)/);
    given().when(mentioned({ chatHandle: 'connections/warehouse/chat-handles/triage' })).thenFails('INVALID_ARGUMENT', /must name a chat connection/);
    given().when(mentioned({ channels: ['#dev'] })).thenFails('INVALID_ARGUMENT', /^configuration\.chat_agent_mentioned\.channels\[0\]: the bot/);
  });

  it('associated_resources are resource names', () => {
    given().when(create({ manual: {} }, { associatedResources: ['checkout'] })).thenFails('INVALID_ARGUMENT', /^associated_resources\[0\] must be a resource name/);
  });

  it('reads durations as decimal seconds with an s suffix', () => {
    expect(durationMillis('300s')).toBe(300_000);
    expect(durationMillis('1.5s')).toBe(1500);
    expect(durationMillis('0.0001s')).toBe(0);
    expect([durationMillis('5m'), durationMillis('1e3s'), durationMillis(' 1s'), durationMillis(5)]).toEqual([undefined, undefined, undefined, undefined]);
  });
});
