/**
 * What a chat connection's operator configuration says about the bot (docs/decisions.md, "Chat
 * webhook"): the channels it is a member of (`bot_channels`, name and platform id) and the handles
 * it answers to (`handles`, id and the platform user id mentions carry, or an `email` the chat port
 * resolves to one; one may be the default).
 * Details are kept as the operator wrote them, so both key spellings are read.
 */
import { isPlainObject, type JsonObject } from '../shared/json-path';

export const CHAT_CONNECTION_TYPE = 'CONNECTION_TYPE_CHAT';

export interface BotChannel {
  name: string;
  id: string;
}
export interface ChatHandle {
  id: string;
  /** The platform user id mentions carry; '' for a handle named only by `email` until the chat port resolves it. */
  userId: string;
  /** The handle's user as the operator may name it instead (`email`), resolved through the chat port's user lookup. */
  email?: string;
  isDefault: boolean;
}
export interface ChatDetails {
  teamId: string;
  botChannels: BotChannel[];
  handles: ChatHandle[];
}

function field(object: JsonObject, snake: string, camel: string): unknown {
  return Object.hasOwn(object, snake) ? object[snake] : object[camel];
}

/** `ops`, `#ops` and `#Ops` name one channel: `#ops`. */
export function normalizeChannel(name: string): string {
  return `#${name.replace(/^#/, '').toLowerCase()}`;
}

/** The chat details of a stored connection document (an empty membership when it has none). */
export function chatDetailsOf(connection: JsonObject): ChatDetails {
  const details = field(connection, 'connection_details', 'connectionDetails');
  const chat = isPlainObject(details) && isPlainObject(details.chat) ? details.chat : {};
  const list = (value: unknown): JsonObject[] => (Array.isArray(value) ? value.filter(isPlainObject) : []);
  return {
    teamId: String(field(chat, 'team_id', 'teamId') ?? ''),
    botChannels: list(field(chat, 'bot_channels', 'botChannels'))
      .filter((c) => typeof c.name === 'string' && typeof c.id === 'string')
      .map((c) => ({ name: normalizeChannel(String(c.name)), id: String(c.id) })),
    handles: list(chat.handles)
      .filter((h) => typeof h.id === 'string' && (typeof field(h, 'user_id', 'userId') === 'string' || typeof h.email === 'string'))
      .map((h) => {
        const userId = field(h, 'user_id', 'userId');
        return { id: String(h.id), userId: typeof userId === 'string' ? userId : '', ...(typeof h.email === 'string' ? { email: h.email } : {}), isDefault: h.default === true };
      }),
  };
}

/**
 * The facts a trigger write or a chat invocation may carry (ValidationContext.facts): the bot's
 * channel membership read live through the chat port, per chat connection name. A connection
 * missing there (no bot token, the platform unavailable) is judged by its configured `bot_channels`.
 */
export const CHAT_MEMBERSHIP_FACT = 'chatMembership';
export type ChatMembershipFacts = Readonly<Record<string, readonly BotChannel[]>>;

/** The channels the bot of `connectionName` is a member of: live when known, else as configured. */
export function botChannelsOf(connectionName: string, connection: JsonObject, live?: ChatMembershipFacts): readonly BotChannel[] {
  return live?.[connectionName] ?? chatDetailsOf(connection).botChannels;
}

/** `connections/{c}/chat-handles/{h}` split, or undefined when malformed. */
export function parseChatHandleName(name: unknown): { connection: string; handle: string } | undefined {
  if (typeof name !== 'string') return undefined;
  const match = /^(connections\/[^/]+)\/chat-handles\/([^/]+)$/.exec(name);
  return match ? { connection: match[1], handle: match[2] } : undefined;
}
