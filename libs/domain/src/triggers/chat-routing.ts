/**
 * Which chat triggers a verified chat message fires (spec part 1, "Configuration variants" and
 * "Event sources that start agent sessions"), and the invoke context each gets. Pure: the
 * dispatcher supplies the message, the connection's details and the organization's enabled chat
 * triggers on that connection.
 */
import { isPlainObject, type JsonObject } from '../shared/json-path';
import type { ChatDetails } from './chat-connection';
import { normalizeChannel, parseChatHandleName } from './chat-connection';
import type { ChatContext } from './invocation';

/** A chat message as the platform's event envelope carries it (Slack's `event_callback`). */
export interface ChatMessage {
  connection: string;
  teamId: string;
  enterpriseId?: string;
  /** The channel's platform id (`C001`); its name is found in the bot's membership. */
  channelId: string;
  userId: string;
  text: string;
  eventTs: string;
  /** Set on a reply in a thread (differs from eventTs). */
  threadTs?: string;
  /** A thread reply also sent to the channel (`thread_broadcast`): a message in the channel too. */
  broadcast?: boolean;
}

/**
 * Message subtypes a person's ordinary post carries (Slack): a reply also sent to the channel, a
 * post with files, a `/me` message. Every other subtype (edits, deletions, bot posts, joins, topic
 * changes) starts nothing: an edit or deletion is not a new message, and a bot's post could loop.
 */
const ORDINARY_SUBTYPES: ReadonlySet<string> = new Set(['thread_broadcast', 'file_share', 'me_message']);

/** The message of an `event_callback` envelope, or null for events that start nothing. */
export function chatMessageOf(envelope: JsonObject, connection: string): ChatMessage | null {
  const event = envelope.event;
  if (!isPlainObject(event) || (event.type !== 'message' && event.type !== 'app_mention')) return null;
  if (event.subtype !== undefined && !(typeof event.subtype === 'string' && ORDINARY_SUBTYPES.has(event.subtype))) return null;
  // A bot's post carries bot_id whatever its subtype (a bot may post file_share too).
  if (event.bot_id !== undefined && event.bot_id !== null) return null;
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  if (!str(event.channel) || !str(event.ts)) return null;
  return {
    connection,
    teamId: str(envelope.team_id) || str(event.team),
    ...(str(envelope.enterprise_id) ? { enterpriseId: str(envelope.enterprise_id) } : {}),
    channelId: str(event.channel),
    userId: str(event.user),
    text: str(event.text),
    eventTs: str(event.event_ts) || str(event.ts),
    ...(str(event.thread_ts) ? { threadTs: str(event.thread_ts) } : {}),
    ...(event.subtype === 'thread_broadcast' ? { broadcast: true } : {}),
  };
}

const isMentionId = (id: string): boolean => {
  if (id === '') return false;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 90))) return false;
  }
  return true;
};

/** `@U123` or `@U123|name` (a user), `!subteam^S123` or `!subteam^S123|@team` (a user group), else null. */
function mentionOf(entity: string): { kind: 'user' | 'group'; id: string } | null {
  const bar = entity.indexOf('|');
  const head = bar < 0 ? entity : entity.slice(0, bar);
  if (head.startsWith('@')) return isMentionId(head.slice(1)) ? { kind: 'user', id: head.slice(1) } : null;
  if (head.startsWith('!subteam^')) return isMentionId(head.slice(9)) ? { kind: 'group', id: head.slice(9) } : null;
  return null;
}

const isSpace = (c: string | undefined) => c === ' ' || c === '\t';

/**
 * The kept pieces of a text around removed mentions, joined: a mention that stood between spaces
 * leaves one space, one that stood against a word or punctuation leaves none (`hi <@U1>, there`
 * reads `hi, there`). Linear: each piece is trimmed at its ends only.
 */
function joinAroundRemovals(kept: readonly string[]): string {
  const parts: string[] = [];
  let spaceBefore = false;
  kept.forEach((piece, i) => {
    let from = 0;
    let to = piece.length;
    if (i > 0) while (from < to && isSpace(piece[from])) from++;
    if (i < kept.length - 1) while (to > from && isSpace(piece[to - 1])) to--;
    const leading = from > 0;
    const trailing = to < piece.length || (from === to && leading);
    if (from === to) {
      spaceBefore = spaceBefore || trailing;
      return;
    }
    if (parts.length > 0 && spaceBefore && leading) parts.push(' ');
    parts.push(piece.slice(from, to));
    spaceBefore = trailing;
  });
  return parts.join('').trim();
}

/**
 * The user ids a message mentions, and its text with the bot's mentions (`botUserIds`: the
 * connection's handles) and user-group mentions removed; a person's mention stays, it is part of
 * what was said (spec: "text with bot and user-group mentions stripped"). One pass, linear in the
 * text: each `<...>` entity is found with indexOf, and no regular expression backtracks over it.
 */
export function mentionsOf(text: string, botUserIds: ReadonlySet<string>): { userIds: Set<string>; stripped: string } {
  const userIds = new Set<string>();
  const kept: string[] = [];
  let cursor = 0;
  let scan = 0;
  while (scan < text.length) {
    const first = text.indexOf('<', scan);
    const close = first < 0 ? -1 : text.indexOf('>', first + 1);
    if (close < 0) break;
    // The entity starts at the last '<' before its '>' (a stray '<' in the text opens nothing).
    const open = text.lastIndexOf('<', close);
    scan = close + 1;
    const mention = mentionOf(text.slice(open + 1, close));
    if (!mention) continue;
    if (mention.kind === 'user') userIds.add(mention.id);
    if (mention.kind === 'user' && !botUserIds.has(mention.id)) continue;
    kept.push(text.slice(cursor, open));
    cursor = close + 1;
  }
  kept.push(text.slice(cursor));
  return { userIds, stripped: joinAroundRemovals(kept) };
}

/**
 * The triggers this message fires, each with its invoke context:
 * - chat_message_posted: the channel is listed, and a thread reply only when include_thread_replies;
 * - chat_agent_mentioned: its handle is mentioned and the channel is listed (or the list is empty).
 *   When a custom handle is mentioned, triggers of the default handle do not fire (spec).
 * A channel the bot is not a member of fires nothing (the platform should not deliver it).
 */
export function chatTriggersFired(message: ChatMessage, details: ChatDetails, triggers: readonly JsonObject[]): { trigger: string; chat: ChatContext }[] {
  const channel = details.botChannels.find((c) => c.id === message.channelId);
  if (!channel) return [];
  // A handle whose user id is not known (named by e-mail, not resolved) is mentioned by no one.
  const handles = details.handles.filter((h) => h.userId !== '');
  const { userIds, stripped } = mentionsOf(message.text, new Set(handles.map((h) => h.userId)));
  const mentioned = handles.filter((h) => userIds.has(h.userId));
  const custom = mentioned.some((h) => !h.isDefault);
  const firing = new Set(mentioned.filter((h) => !custom || !h.isDefault).map((h) => h.id));
  const isReply = message.threadTs !== undefined && message.threadTs !== '' && message.threadTs !== message.eventTs && message.broadcast !== true;
  const context: ChatContext = {
    chatConnection: message.connection,
    teamId: message.teamId,
    ...(message.enterpriseId ? { enterpriseId: message.enterpriseId } : {}),
    channelName: channel.name,
    threadTs: message.threadTs ?? '',
    eventTs: message.eventTs,
    userId: message.userId,
    text: stripped,
  };
  const fired: { trigger: string; chat: ChatContext }[] = [];
  for (const trigger of triggers) {
    const configuration = isPlainObject(trigger.configuration) ? trigger.configuration : {};
    const posted = configuration.chatMessagePosted;
    const mention = configuration.chatAgentMentioned;
    const channels = (config: JsonObject) => (Array.isArray(config.channels) ? config.channels.map((c) => normalizeChannel(String(c))) : []);
    if (isPlainObject(posted) && posted.chatConnection === message.connection) {
      if (!channels(posted).includes(channel.name)) continue;
      if (isReply && posted.includeThreadReplies === false) continue;
      fired.push({ trigger: String(trigger.name), chat: context });
    } else if (isPlainObject(mention)) {
      const handle = parseChatHandleName(mention.chatHandle);
      if (!handle || handle.connection !== message.connection || !firing.has(handle.handle)) continue;
      const listed = channels(mention);
      if (listed.length > 0 && !listed.includes(channel.name)) continue;
      fired.push({ trigger: String(trigger.name), chat: context });
    }
  }
  return fired;
}
