/**
 * The Slack chat adapter, on the official client (`@slack/web-api`) with a bot token. Membership is
 * `users.conversations` (the bot's own conversations, public and private channels, archived left
 * out) paged by `response_metadata.next_cursor` up to a channel bound; posts are `chat.postMessage`,
 * direct messages `conversations.open`, users `users.info` and `users.lookupByEmail`.
 *
 * The client's own retries are off and a 429 is rejected at once (`rejectRateLimitedCalls`): the
 * caller gets RESOURCE_EXHAUSTED with Slack's Retry-After and decides, instead of a request that
 * hangs for the client's thirty-minute retry policy. Its logger is silenced (it would print request
 * details). Errors are rebuilt from Slack's error code, never from the request: no token in them.
 */
import { type Logger, LogLevel, WebAPIHTTPError, WebAPIPlatformError, WebAPIRateLimitedError, WebAPIRequestError, WebClient } from '@slack/web-api';
import { checkEmail, checkMessageText, checkPlatformId, type Chat, type ChatChannel, ChatError, type ChatErrorCode, type ChatMembership, type ChatMessage, type ChatUser, MAX_MEMBERSHIP_CHANNELS, type PostedMessage } from './chat.port';

export interface SlackOptions {
  token: string;
  /** `https://slack.com/api/` by default; tests point it at a local server. */
  apiUrl?: string;
  timeoutMs?: number;
}

/** Channels asked for per page (Slack's reference: "no larger than 1000"; 200 is its advice for cursor paging). */
const PAGE_LIMIT = 200;

/** Slack error codes (each method's "Errors" table in the reference) by the code the API answers with. */
const ERROR_CODES: Record<string, ChatErrorCode> = {
  not_authed: 'PERMISSION_DENIED',
  invalid_auth: 'PERMISSION_DENIED',
  account_inactive: 'PERMISSION_DENIED',
  token_revoked: 'PERMISSION_DENIED',
  token_expired: 'PERMISSION_DENIED',
  missing_scope: 'PERMISSION_DENIED',
  no_permission: 'PERMISSION_DENIED',
  not_allowed_token_type: 'PERMISSION_DENIED',
  access_denied: 'PERMISSION_DENIED',
  ekm_access_denied: 'PERMISSION_DENIED',
  channel_not_found: 'NOT_FOUND',
  user_not_found: 'NOT_FOUND',
  users_not_found: 'NOT_FOUND',
  not_in_channel: 'FAILED_PRECONDITION',
  is_archived: 'FAILED_PRECONDITION',
  user_disabled: 'FAILED_PRECONDITION',
  user_not_visible: 'FAILED_PRECONDITION',
  cannot_dm_bot: 'FAILED_PRECONDITION',
  restricted_action: 'FAILED_PRECONDITION',
  msg_too_long: 'INVALID_ARGUMENT',
  no_text: 'INVALID_ARGUMENT',
  invalid_cursor: 'INVALID_ARGUMENT',
  invalid_limit: 'INVALID_ARGUMENT',
  invalid_arguments: 'INVALID_ARGUMENT',
  invalid_blocks: 'INVALID_ARGUMENT',
  ratelimited: 'RESOURCE_EXHAUSTED',
  rate_limited: 'RESOURCE_EXHAUSTED',
};

const silent: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  setLevel: () => undefined,
  getLevel: () => LogLevel.ERROR,
  setName: () => undefined,
};

interface SlackUserRecord {
  id?: string;
  name?: string;
  real_name?: string;
  team_id?: string;
  deleted?: boolean;
  is_bot?: boolean;
  profile?: { email?: string; real_name?: string };
}

export class SlackChat implements Chat {
  private readonly client: WebClient;

  constructor(options: SlackOptions) {
    const apiUrl = options.apiUrl ? (options.apiUrl.endsWith('/') ? options.apiUrl : `${options.apiUrl}/`) : undefined;
    this.client = new WebClient(options.token, {
      ...(apiUrl ? { slackApiUrl: apiUrl } : {}),
      logger: silent,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      timeout: options.timeoutMs ?? 10_000,
      // A method name is never a URL here, so no request leaves for another host with the token.
      allowAbsoluteUrls: false,
    });
  }

  async botMembership(maxChannels = MAX_MEMBERSHIP_CHANNELS): Promise<ChatMembership> {
    const channels: ChatChannel[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.call('users.conversations', () =>
        this.client.users.conversations({ types: 'public_channel,private_channel', exclude_archived: true, limit: PAGE_LIMIT, ...(cursor ? { cursor } : {}) }),
      );
      for (const c of page.channels ?? []) {
        if (typeof c.id === 'string' && typeof c.name === 'string') channels.push({ id: c.id, name: `#${c.name.toLowerCase()}` });
        if (channels.length >= maxChannels) return { channels, complete: false };
      }
      // Slack's pagination: an empty next_cursor is the last page.
      cursor = page.response_metadata?.next_cursor || undefined;
    } while (cursor);
    return { channels, complete: true };
  }

  async postMessage(message: ChatMessage): Promise<PostedMessage> {
    const channel = checkPlatformId(message.channel, 'channel');
    const text = checkMessageText(message.text);
    const res = await this.call('chat.postMessage', () =>
      this.client.chat.postMessage({ channel, text, ...(message.threadTs ? { thread_ts: message.threadTs } : {}), unfurl_links: false, unfurl_media: false }),
    );
    if (typeof res.ts !== 'string') throw new ChatError('UNAVAILABLE', 'slack: chat.postMessage answered no message ts');
    return { channel: typeof res.channel === 'string' ? res.channel : channel, ts: res.ts };
  }

  async openDirectMessage(userId: string): Promise<string> {
    const users = checkPlatformId(userId, 'user');
    const res = await this.call('conversations.open', () => this.client.conversations.open({ users }));
    const id = res.channel?.id;
    if (typeof id !== 'string') throw new ChatError('UNAVAILABLE', 'slack: conversations.open answered no channel id');
    return id;
  }

  async userById(userId: string): Promise<ChatUser | null> {
    const user = checkPlatformId(userId, 'user');
    return this.userOrNull('users.info', () => this.client.users.info({ user }).then((r) => r.user as SlackUserRecord | undefined));
  }

  async userByEmail(email: string): Promise<ChatUser | null> {
    const checked = checkEmail(email);
    return this.userOrNull('users.lookupByEmail', () => this.client.users.lookupByEmail({ email: checked }).then((r) => r.user as SlackUserRecord | undefined));
  }

  private async userOrNull(method: string, read: () => Promise<SlackUserRecord | undefined>): Promise<ChatUser | null> {
    try {
      const user = await this.call(method, read);
      return user && typeof user.id === 'string' ? toUser(user) : null;
    } catch (error) {
      if (error instanceof ChatError && error.code === 'NOT_FOUND') return null;
      throw error;
    }
  }

  private async call<T>(method: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw chatErrorOf(method, error);
    }
  }
}

function toUser(user: SlackUserRecord): ChatUser {
  const realName = user.real_name ?? user.profile?.real_name;
  return {
    id: String(user.id),
    name: user.name ?? '',
    ...(realName ? { realName } : {}),
    ...(user.profile?.email ? { email: user.profile.email } : {}),
    ...(user.team_id ? { teamId: user.team_id } : {}),
    deleted: user.deleted === true,
    isBot: user.is_bot === true,
  };
}

/** The client's failure as a ChatError; built from codes only (a Slack error code is `[a-z_]`). */
export function chatErrorOf(method: string, error: unknown): ChatError {
  if (error instanceof ChatError) return error;
  if (error instanceof WebAPIRateLimitedError) {
    return new ChatError('RESOURCE_EXHAUSTED', `slack: ${method} is rate limited; retry after ${error.retryAfter} s`, error.retryAfter);
  }
  if (error instanceof WebAPIPlatformError) {
    const code = String(error.data.error ?? '').replace(/[^a-z_]/g, '').slice(0, 64) || 'unknown_error';
    return new ChatError(ERROR_CODES[code] ?? 'UNAVAILABLE', `slack: ${method} answered ${code}`);
  }
  if (error instanceof WebAPIHTTPError) return new ChatError('UNAVAILABLE', `slack: ${method} answered HTTP ${error.statusCode}`);
  if (error instanceof WebAPIRequestError) {
    const cause = (error.original as NodeJS.ErrnoException | undefined)?.name === 'TimeoutError' ? 'timed out' : 'could not be reached';
    return new ChatError('UNAVAILABLE', `slack: ${method} ${cause}`);
  }
  return new ChatError('UNAVAILABLE', `slack: ${method} failed`);
}
