/**
 * InvokeTrigger's rules (spec part 1, "Triggers", InvokeTrigger): exactly one of message and chat,
 * the chat arm's validation table row by row, the seed activity, and the session an invocation
 * derives its ID from (docs/decisions.md, "Triggers": idempotency without a dedupe store).
 */
import { v5 as uuidv5 } from 'uuid';
import { ACTIVITY_TYPE, type AnyMessage } from '@svc/contracts/sessions/session.events';
import { CHAT_VARIANTS, type TriggerVariant } from '@svc/contracts/triggers/trigger-configuration';
import { failedPrecondition, invalid, notFound, permissionDenied } from '../shared/domain-error';
import { isPlainObject, type JsonObject } from '../shared/json-path';
import { sessionNameOf } from '../sessions/session.decider';
import { type BotChannel, botChannelsOf, normalizeChannel, parseChatHandleName } from './chat-connection';
import { variantOf } from './configuration';

/** Spec "Limits": an idempotency key finds sessions of the last 15 minutes. */
export const IDEMPOTENCY_WINDOW_MS = 15 * 60 * 1000;

const INVOCATION_NAMESPACE = '0b7d3c2a-5e41-4f8e-9d6a-2c8f1e4b7a90';

/** The chat invoke context (camelCase), as the dispatcher or a caller sends it. */
export interface ChatContext {
  chatConnection?: string;
  teamId?: string;
  enterpriseId?: string;
  channelName?: string;
  threadTs?: string;
  eventTs?: string;
  userId?: string;
  text?: string;
  permalink?: string;
}

/** Where the seed came from, recorded on the new session as `origin` (Activity messages have no room for it). */
export interface SessionOrigin {
  trigger: string;
  idempotencyKey?: string;
  /** The chat context as validated, with the channel normalized and its id resolved from the bot's membership. */
  chat?: ChatContext & { channelName: string; channelId: string; threadTs: string };
}

/** The connection a chat trigger listens on: its chat_connection, or the connection of its chat handle. */
export function chatConnectionOf(configuration: unknown): string | undefined {
  if (!isPlainObject(configuration)) return undefined;
  const posted = configuration.chatMessagePosted;
  if (isPlainObject(posted) && typeof posted.chatConnection === 'string') return posted.chatConnection;
  const mentioned = configuration.chatAgentMentioned;
  return isPlainObject(mentioned) ? parseChatHandleName(mentioned.chatHandle)?.connection : undefined;
}

/** Exactly one of `message` and `chat` (spec: InvokeTrigger request). */
export function checkInvokeArms(message: unknown, chat: unknown): 'message' | 'chat' {
  const hasMessage = typeof message === 'string' && message !== '';
  const hasChat = isPlainObject(chat);
  if (hasMessage === hasChat) throw invalid('exactly one of message and chat must be set');
  return hasMessage ? 'message' : 'chat';
}

/**
 * The chat arm's table, in the spec's order: a non-chat trigger and a missing channel_name are
 * INVALID_ARGUMENT, another connection or a channel outside the trigger's list PERMISSION_DENIED, a
 * channel the bot is not in NOT_FOUND. `connection` is the trigger's chat connection document;
 * `live`, the bot's membership read through the chat port (else the configured `bot_channels`).
 */
export function checkChatInvocation(trigger: JsonObject, chat: ChatContext, connection: JsonObject | null, live?: readonly BotChannel[]): NonNullable<SessionOrigin['chat']> {
  const variant: TriggerVariant = variantOf(trigger.configuration);
  if (!CHAT_VARIANTS.includes(variant)) {
    throw invalid(`chat is accepted only by chat_message_posted and chat_agent_mentioned triggers; '${String(trigger.name)}' is ${variant.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`);
  }
  const configured = chatConnectionOf(trigger.configuration) ?? '';
  if (chat.chatConnection && chat.chatConnection !== configured) {
    throw permissionDenied(`chat.chat_connection '${chat.chatConnection}' is not the connection of trigger '${String(trigger.name)}'`);
  }
  if (typeof chat.channelName !== 'string' || chat.channelName.replace(/^#/, '') === '') throw invalid('chat.channel_name is required');
  const channelName = normalizeChannel(chat.channelName);
  const config = (trigger.configuration as JsonObject)[variant] as JsonObject;
  const channels = Array.isArray(config.channels) ? (config.channels as string[]) : [];
  if (channels.length > 0 && !channels.includes(channelName)) {
    throw permissionDenied(`chat.channel_name '${channelName}' is not one of the channels of trigger '${String(trigger.name)}'`);
  }
  const member = connection ? botChannelsOf(configured, connection, live && { [configured]: live }).find((c) => c.name === channelName) : undefined;
  if (!member) throw notFound(`channel '${channelName}' is not among the channels the bot of ${configured} is a member of`);
  const eventTs = chat.eventTs ?? '';
  return {
    ...chat,
    chatConnection: configured,
    channelName,
    channelId: member.id,
    // Spec: an empty thread_ts means the reply opens a new thread at the event.
    threadTs: chat.threadTs ? chat.threadTs : eventTs,
  };
}

/**
 * The organization an internal chat invocation acts for when machine credentials (the integrations
 * server, with no organization of their own) send it: the one whose chat connection belongs to the
 * context's workspace (`team_id`), as HandleChatEvent finds it. `organizations` are the
 * organizations of the workspace's chat connections. The spec's table then judges the call in it.
 */
export function workspaceOrganization(chat: ChatContext, organizations: readonly string[]): string {
  if (!chat.teamId) throw invalid('chat.team_id is required with machine credentials: the workspace names the organization');
  const distinct = [...new Set(organizations)];
  if (distinct.length === 0) throw notFound(`no chat connection belongs to workspace '${chat.teamId}'`);
  if (distinct.length > 1) {
    throw failedPrecondition(
      `workspace '${chat.teamId}' has chat connections in more than one organization, so the call names none; deliver the event through HandleChatEvent, whose signature names the connection`,
    );
  }
  return distinct[0];
}

/**
 * The occasion of a chat message (workspace, channel id, message ts): the dispatcher and the
 * integrations server invoking for the same message name one session per trigger, however often
 * either retries. Undefined when the context has no event_ts to name the message by.
 */
export function chatMessageOccasion(chat: NonNullable<SessionOrigin['chat']>): string | undefined {
  return chat.eventTs ? `chat-message|${chat.teamId ?? ''}|${chat.channelId}|${chat.eventTs}` : undefined;
}

/** The seed: one user text activity. */
export function seedActivity(typeHost: string, text: string): AnyMessage {
  return { '@type': `${typeHost}/${ACTIVITY_TYPE}`, user: { text: { text } } };
}

/**
 * The session an occasion creates, derived from it: the same occasion (an idempotency key in one
 * window, a chat delivery's event id, a cron time) always names the same session, so a retry, a
 * concurrent invoke or a second process finds the first session instead of making another.
 */
export function occasionSessionId(org: string, trigger: string, occasion: string): string {
  return uuidv5(`${org}|${trigger}|${occasion}`, INVOCATION_NAMESPACE);
}

/** The session an occasion starts, every part derived from the occasion. */
export interface OccasionSessionKeys {
  /** occasionSessionId */
  id: string;
  /** Its name under the trigger's agent (sessionNameOf). */
  name: string;
  /** The request id of its claim and creation (and of nothing else the occasion does). */
  requestId: string;
}

/**
 * The ID, name and request id of the session `occasion` of `trigger` starts, computed once for
 * InvokeTrigger and the trigger reactors alike. Reactor occasions start with their source (`cron|`,
 * `post_deploy|`, `row|`), so they never meet an invocation's (`request|`, `idempotency-key|`, a chat
 * delivery's).
 */
export function occasionSessionKeys(org: string, trigger: string, agent: string, occasion: string): OccasionSessionKeys {
  const id = occasionSessionId(org, trigger, occasion);
  return { id, name: sessionNameOf(agent, id), requestId: `invoke|${trigger}|${occasion}` };
}

/** The occasion of an idempotency key at `nowMs`: the key in its 15-minute window (`windowOffset` -1 is the one before). */
export function idempotencyOccasion(key: string, nowMs: number, windowOffset = 0): string {
  return `idempotency-key|${Math.floor(nowMs / IDEMPOTENCY_WINDOW_MS) + windowOffset}|${key}`;
}

/** Whether a session found for a key may be returned: created within the window before `nowMs`, with the same key. */
export function isRecentSeedOf(session: JsonObject | null, key: string, nowMs: number): boolean {
  if (!session || session.deleteTime !== undefined) return false;
  const origin = session.origin;
  const created = Date.parse(String(session.createTime));
  return isPlainObject(origin) && origin.idempotencyKey === key && nowMs - created <= IDEMPOTENCY_WINDOW_MS;
}
