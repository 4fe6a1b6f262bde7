/**
 * The chat port (issue 21, "Ports and real adapters"): what the product does in its users' team chat
 * beyond verifying webhooks (signature.ts): the bot's channel membership read live, posting a
 * message, opening a direct message, looking users up. One adapter: Slack on `@slack/web-api`
 * (slack.chat.ts), run by the contract suite test/contracts/chat.contract.spec.ts against a local
 * server answering as Slack's Web API reference documents. No error ever holds a credential.
 */

/** A channel the bot is a member of: the platform id and the `#name` triggers use. */
export interface ChatChannel {
  id: string;
  /** Normalized `#name` (lowercase). */
  name: string;
}

/** The bot's membership as read: `complete` is false when the page bound stopped the read early. */
export interface ChatMembership {
  channels: ChatChannel[];
  complete: boolean;
}

export interface ChatUser {
  id: string;
  /** The handle (`name`). */
  name: string;
  realName?: string;
  email?: string;
  teamId?: string;
  deleted: boolean;
  isBot: boolean;
}

export interface PostedMessage {
  /** The conversation id the message landed in. */
  channel: string;
  /** The message's timestamp id. */
  ts: string;
}

export interface ChatMessage {
  /** A conversation id (`C…`, `G…`, `D…`). */
  channel: string;
  text: string;
  /** Reply in this thread. */
  threadTs?: string;
}

export interface Chat {
  /** Public and private channels the bot is a member of (archived ones left out), at most `maxChannels`. */
  botMembership(maxChannels?: number): Promise<ChatMembership>;
  /** Posts as the bot; INVALID_ARGUMENT above MAX_CHAT_MESSAGE_CHARS (checked before any call). */
  postMessage(message: ChatMessage): Promise<PostedMessage>;
  /** The id of the bot's direct-message conversation with a user (opened, or resumed). */
  openDirectMessage(userId: string): Promise<string>;
  /** A user by platform id, or null when the workspace has none. */
  userById(userId: string): Promise<ChatUser | null>;
  /** A user by e-mail address, or null when no user has it. */
  userByEmail(email: string): Promise<ChatUser | null>;
}

/**
 * Longest message text we send. Slack's chat.postMessage reference: text is truncated above 40,000
 * characters (and a 4,000-character text is the recommended most); we refuse rather than truncate
 * silently, so the caller decides what to cut.
 */
export const MAX_CHAT_MESSAGE_CHARS = 40_000;
/** Most channels a membership read collects (ours): the membership read stops there, `complete: false`. */
export const MAX_MEMBERSHIP_CHANNELS = 2_000;

export type ChatErrorCode = 'NOT_FOUND' | 'INVALID_ARGUMENT' | 'PERMISSION_DENIED' | 'FAILED_PRECONDITION' | 'RESOURCE_EXHAUSTED' | 'UNAVAILABLE';

/** A chat failure with the API's code; the message names the method and the platform's error code, never a token. */
export class ChatError extends Error {
  constructor(
    readonly code: ChatErrorCode,
    message: string,
    /** Seconds the platform asked us to wait (rate limiting). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'ChatError';
  }
}

/** A platform id as Slack writes them (`C0123ABC`, `U0123`, `W…`): checked before it reaches a request. */
const PLATFORM_ID = /^[A-Z0-9]{1,32}$/;

export function checkPlatformId(id: string, what: string): string {
  if (!PLATFORM_ID.test(id)) throw new ChatError('INVALID_ARGUMENT', `${what} must be a chat platform id such as C0123ABCD, got '${id.slice(0, 40)}'`);
  return id;
}

/** `a@b.c`, bounded (RFC 5321: 254 characters); linear, no backtracking. */
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,189}$/;

export function checkEmail(email: string): string {
  if (email.length > 254 || !EMAIL.test(email)) throw new ChatError('INVALID_ARGUMENT', 'the e-mail address is not valid');
  return email;
}

export function checkMessageText(text: string): string {
  if (text.trim() === '') throw new ChatError('INVALID_ARGUMENT', 'the message text is empty');
  if (text.length > MAX_CHAT_MESSAGE_CHARS) throw new ChatError('INVALID_ARGUMENT', `the message text is longer than ${MAX_CHAT_MESSAGE_CHARS} characters`);
  return text;
}
