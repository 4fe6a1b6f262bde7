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
}

/** `<@U123>` and `<@U123|name>` (users), `<!subteam^S123>` and `<!subteam^S123|@team>` (user groups). */
const MENTION = /<@([A-Z0-9]+)(?:\|[^>]*)?>|<!subteam\^([A-Z0-9]+)(?:\|[^>]*)?>/g;

/** The user ids a message mentions, and its text with every user and user-group mention removed. */
export function mentionsOf(text: string): { userIds: Set<string>; stripped: string } {
  const userIds = new Set<string>();
  for (const match of text.matchAll(MENTION)) if (match[1]) userIds.add(match[1]);
  const stripped = text.replace(MENTION, ' ').replace(/[ \t]{2,}/g, ' ').trim();
  return { userIds, stripped };
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
  const { userIds, stripped } = mentionsOf(message.text);
  const mentioned = details.handles.filter((h) => userIds.has(h.userId));
  const custom = mentioned.some((h) => !h.isDefault);
  const firing = new Set(mentioned.filter((h) => !custom || !h.isDefault).map((h) => h.id));
  const isReply = message.threadTs !== undefined && message.threadTs !== '' && message.threadTs !== message.eventTs;
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
