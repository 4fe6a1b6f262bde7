/**
 * The trigger configuration's rules (spec part 1, "Configuration variants"), one function per
 * variant. Pure: the chat connection a variant names arrives looked up in `refs` (the kit's
 * references). Messages name the field in its wire spelling (`configuration.post_deploy.delay`).
 */
import { CronExpressionParser } from 'cron-parser';
import { TRIGGER_VARIANTS, type TriggerVariant } from '@svc/contracts/triggers/trigger-configuration';
import { invalid } from '../shared/domain-error';
import { isPlainObject, type JsonObject } from '../shared/json-path';
import { type Facts, type References, wireField } from '../shared/resource';
import { botChannelsOf, CHAT_CONNECTION_TYPE, CHAT_MEMBERSHIP_FACT, chatDetailsOf, type ChatMembershipFacts, normalizeChannel, parseChatHandleName } from './chat-connection';
import { durationMillis, MAX_TRIGGER_DURATION_SECONDS } from './durations';
import { parseRowPredicate } from './row-predicate';

/** Channels a chat trigger may list (ours). */
export const MAX_TRIGGER_CHANNELS = 100;
/** Longest free-text configuration value: table names, environments, schedules (ours). */
const MAX_TEXT = 256;

const CONNECTION_NAME = /^connections\/[^/]+$/;
const REPOSITORY = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
const SHA = /^[0-9a-fA-F]{7,64}$/;
const TABLE = /^[A-Za-z_][A-Za-z0-9_.]{0,127}$/;
const CHANNEL = /^#[a-z0-9][a-z0-9._-]{0,79}$/;

/** The single variant key of a configuration, or INVALID_ARGUMENT. */
export function variantOf(configuration: unknown): TriggerVariant {
  if (!isPlainObject(configuration)) throw invalid(`configuration is required: an object with exactly one of ${TRIGGER_VARIANTS.map(wireField).join(', ')}`);
  const keys = Object.keys(configuration).filter((k) => configuration[k] !== undefined && configuration[k] !== null);
  const unknown = keys.find((k) => !(TRIGGER_VARIANTS as readonly string[]).includes(k));
  if (unknown) throw invalid(`configuration.${wireField(unknown)} is not a trigger variant; known: ${TRIGGER_VARIANTS.map(wireField).join(', ')}`);
  if (keys.length !== 1) throw invalid(`configuration must hold exactly one of ${TRIGGER_VARIANTS.map(wireField).join(', ')} (got ${keys.length})`);
  return keys[0] as TriggerVariant;
}

function text(config: JsonObject, key: string, at: string, pattern?: RegExp, rule?: string): string {
  const value = config[key];
  const field = `${at}.${wireField(key)}`;
  if (typeof value !== 'string' || value.trim() === '') throw invalid(`${field} is required`);
  if (value.length > MAX_TEXT) throw invalid(`${field} is longer than ${MAX_TEXT} characters`);
  if (pattern && !pattern.test(value)) throw invalid(`${field} must be ${rule}, got '${value}'`);
  return value;
}

function duration(config: JsonObject, key: string, at: string): void {
  const field = `${at}.${wireField(key)}`;
  const millis = durationMillis(config[key]);
  if (millis === undefined) throw invalid(`${field} must be a duration in decimal seconds with an 's' suffix (e.g. "300s"), got '${String(config[key] ?? '')}'`);
  if (millis > MAX_TRIGGER_DURATION_SECONDS * 1000) throw invalid(`${field} is longer than the limit of ${MAX_TRIGGER_DURATION_SECONDS}s`);
}

/** Whether `zone` is an IANA time zone the runtime knows. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function cron(config: JsonObject, at: string): void {
  const schedule = text(config, 'schedule', at);
  const timezone = text(config, 'timezone', at);
  if (!isTimeZone(timezone)) throw invalid(`${at}.timezone must be an IANA time zone name such as 'Europe/Paris', got '${timezone}'`);
  try {
    CronExpressionParser.parse(schedule, { tz: timezone, strict: false });
  } catch (error) {
    throw invalid(`${at}.schedule is not a valid cron expression: ${(error as Error).message.slice(0, 200)}`);
  }
}

function row(config: JsonObject, at: string): void {
  text(config, 'tableName', at, TABLE, 'a table name (letters, digits, underscores, dots; a letter or underscore first)');
  parseRowPredicate(config.predicate, `${at}.predicate`);
  duration(config, 'cooldown', at);
}

function postDeploy(config: JsonObject, at: string): void {
  text(config, 'repository', at, REPOSITORY, "'owner/repo'");
  text(config, 'environment', at);
  text(config, 'sha', at, SHA, 'a commit sha (7 to 64 hexadecimal digits)');
  duration(config, 'delay', at);
}

/** A connection the kit looked up, which must be a chat connection. */
function chatConnection(name: string, field: string, refs: References): JsonObject {
  const connection = refs.get(name);
  // The kit already refused a missing one; a stale ref (previous, unchanged) may still be absent.
  if (!connection) throw invalid(`${field} refers to '${name}', which does not exist`);
  if (connection.connectionType !== CHAT_CONNECTION_TYPE) {
    throw invalid(`${field} must name a chat connection (${CHAT_CONNECTION_TYPE}); '${name}' is ${String(connection.connectionType)}`);
  }
  return connection;
}

/** Channels named in a refusal (the live membership may hold thousands). */
const MAX_NAMED_CHANNELS = 20;

function channels(config: JsonObject, at: string, connection: JsonObject, connectionName: string, required: boolean, live?: ChatMembershipFacts): void {
  const field = `${at}.channels`;
  const list = config.channels ?? [];
  if (!Array.isArray(list)) throw invalid(`${field} must be a list of '#name' channels`);
  if (required && list.length === 0) throw invalid(`${field} must list at least one channel`);
  if (list.length > MAX_TRIGGER_CHANNELS) throw invalid(`${field} lists more than ${MAX_TRIGGER_CHANNELS} channels`);
  const member = new Set(botChannelsOf(connectionName, connection, live).map((c) => c.name));
  const seen = new Set<string>();
  for (const [i, channel] of list.entries()) {
    if (typeof channel !== 'string' || !CHANNEL.test(channel)) throw invalid(`${field}[${i}] must be a '#name' channel (lowercase), got '${String(channel)}'`);
    if (seen.has(channel)) throw invalid(`${field}[${i}]: '${channel}' is listed twice`);
    seen.add(channel);
    if (!member.has(channel)) {
      const named = [...member].slice(0, MAX_NAMED_CHANNELS).join(', ') + (member.size > MAX_NAMED_CHANNELS ? `, … (${member.size} in all)` : '');
      throw invalid(`${field}[${i}]: the bot of ${connectionName} is not a member of '${channel}' (member of: ${named || 'none'})`);
    }
  }
}

function chatMessagePosted(config: JsonObject, at: string, refs: References, live?: ChatMembershipFacts): void {
  const name = text(config, 'chatConnection', at, CONNECTION_NAME, "'connections/{connection_id}'");
  const connection = chatConnection(name, `${at}.chat_connection`, refs);
  channels(config, at, connection, name, true, live);
  if (config.includeThreadReplies !== undefined && typeof config.includeThreadReplies !== 'boolean') {
    throw invalid(`${at}.include_thread_replies must be a boolean`);
  }
}

function chatAgentMentioned(config: JsonObject, at: string, refs: References, live?: ChatMembershipFacts): void {
  const field = `${at}.chat_handle`;
  const handle = parseChatHandleName(config.chatHandle);
  if (!handle) throw invalid(`${field} must look like 'connections/{connection}/chat-handles/{handle}', got '${String(config.chatHandle ?? '')}'`);
  const connection = chatConnection(handle.connection, field, refs);
  const handles = chatDetailsOf(connection).handles;
  if (!handles.some((h) => h.id === handle.handle)) {
    throw invalid(`${field} refers to '${String(config.chatHandle)}', which does not exist (handles of ${handle.connection}: ${handles.map((h) => h.id).join(', ') || 'none'})`);
  }
  channels(config, at, connection, handle.connection, false, live);
}

/**
 * Checks the configuration; `refs` holds the connection a chat variant names, `facts` may hold the
 * bot's live membership (CHAT_MEMBERSHIP_FACT), which wins over the configured `bot_channels`.
 */
export function checkConfiguration(configuration: unknown, refs: References, facts?: Facts): TriggerVariant {
  const live = facts?.[CHAT_MEMBERSHIP_FACT] as ChatMembershipFacts | undefined;
  const variant = variantOf(configuration);
  const config = (configuration as JsonObject)[variant];
  const at = `configuration.${wireField(variant)}`;
  if (!isPlainObject(config)) throw invalid(`${at} must be an object`);
  switch (variant) {
    case 'cron': cron(config, at); break;
    case 'manual':
      if (Object.keys(config).length > 0) throw invalid(`${at} takes no fields (got ${Object.keys(config).map(wireField).join(', ')})`);
      break;
    case 'row': row(config, at); break;
    case 'postDeploy': postDeploy(config, at); break;
    case 'chatMessagePosted': chatMessagePosted(config, at, refs, live); break;
    case 'chatAgentMentioned': chatAgentMentioned(config, at, refs, live); break;
  }
  return variant;
}

/** The connection a chat variant refers to (for ResourceSpec.references), when well-formed. */
export function configurationReferences(configuration: unknown): string[] {
  if (!isPlainObject(configuration)) return [];
  const posted = configuration.chatMessagePosted;
  if (isPlainObject(posted) && typeof posted.chatConnection === 'string' && CONNECTION_NAME.test(posted.chatConnection)) return [posted.chatConnection];
  const mentioned = configuration.chatAgentMentioned;
  const handle = isPlainObject(mentioned) ? parseChatHandleName(mentioned.chatHandle) : undefined;
  return handle ? [handle.connection] : [];
}

/** Channel names as the chat invoke context takes them: `ops`, `#ops` and `#Ops` are `#ops` (other values are left for the check to refuse). */
function normalizedChannels(channels: unknown): unknown {
  return Array.isArray(channels) ? channels.map((c) => (typeof c === 'string' ? normalizeChannel(c) : c)) : channels;
}

/**
 * Defaults the spec gives: include_thread_replies true, a mention trigger's channels empty, cron in
 * UTC; an omitted duration (a row's cooldown, a post-deploy delay) is `0s`, as an unset proto3
 * Duration is. Channel names are stored normalized, as the chat invoke context normalizes them.
 */
export function withConfigurationDefaults(configuration: unknown): unknown {
  if (!isPlainObject(configuration)) return configuration;
  const out: JsonObject = { ...configuration };
  // JSON null means the default (proto3 JSON), as an absent field does.
  const absent = (v: unknown) => v === undefined || v === null;
  if (isPlainObject(out.chatMessagePosted)) {
    const posted = out.chatMessagePosted;
    out.chatMessagePosted = {
      ...posted,
      ...(absent(posted.channels) ? {} : { channels: normalizedChannels(posted.channels) }),
      ...(absent(posted.includeThreadReplies) ? { includeThreadReplies: true } : {}),
    };
  }
  if (isPlainObject(out.chatAgentMentioned)) {
    const mentioned = out.chatAgentMentioned;
    out.chatAgentMentioned = { ...mentioned, channels: absent(mentioned.channels) ? [] : normalizedChannels(mentioned.channels) };
  }
  if (isPlainObject(out.cron) && (absent(out.cron.timezone) || out.cron.timezone === '')) out.cron = { ...out.cron, timezone: 'UTC' };
  if (isPlainObject(out.row) && absent(out.row.cooldown)) out.row = { ...out.row, cooldown: '0s' };
  if (isPlainObject(out.postDeploy) && absent(out.postDeploy.delay)) out.postDeploy = { ...out.postDeploy, delay: '0s' };
  return out;
}
