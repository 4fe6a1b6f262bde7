/**
 * TOOL_CHAT_POST_MESSAGE (issue 21): the agent posts to a channel of the connection's chat through
 * the chat port (integrations/chat). Arguments: `channel` (`#name`), `text`, optional `thread_ts`.
 * The channel must be one the bot is a member of: its id comes from the bot's membership, read live
 * (cached per connection for MEMBERSHIP_TTL_MS) and, when it cannot be read, from the configured
 * `bot_channels`; the model never names a platform id. Write-classified: dry-run and incognito
 * sessions never reach here (agent-runtime/tools.ts).
 */
import { createHash } from 'node:crypto';
import { chatOfSection } from '../../chat/chat-of';
import { type Chat, ChatError, type ChatChannel, MAX_CHAT_MESSAGE_CHARS } from '../../chat/chat.port';
import { MembershipCache } from '../../chat/membership-cache';
import { type ToolAdapter, type ToolConnection, type ToolContext, ToolError, type ToolErrorCode } from '../tool-adapter.port';

export const CHAT_TOOLS = ['TOOL_CHAT_POST_MESSAGE'] as const;

const USAGE = 'TOOL_CHAT_POST_MESSAGE takes {"channel": "#name", "text": "<message>", "thread_ts": "<optional thread>"}';
const CHANNEL = /^#?[a-z0-9][a-z0-9._-]{0,79}$/i;
const THREAD_TS = /^\d{1,12}\.\d{1,8}$/;

export class ChatToolAdapter implements ToolAdapter {
  readonly connectionType = 'CONNECTION_TYPE_CHAT';
  readonly tools: readonly string[] = CHAT_TOOLS;
  private readonly membership = new MembershipCache();

  /** `chatOf` builds the chat of a connection's details (tests may substitute one). */
  constructor(private readonly chatOf: (details: Record<string, unknown>, timeoutMs: number) => Chat | null = chatOfSection) {}

  async run(tool: string, args: Record<string, unknown>, connection: ToolConnection, context: ToolContext): Promise<Record<string, unknown>> {
    if (tool !== 'TOOL_CHAT_POST_MESSAGE') throw new ToolError('INVALID_ARGUMENT', `${tool} is not a tool of ${this.connectionType}`);
    // Everything the model wrote is checked before the chat is called.
    const { channel, text, threadTs } = postArguments(args);
    const chat = this.chatOf(connection.details, context.limits.timeoutMs);
    if (!chat) throw new ToolError('FAILED_PRECONDITION', `${connection.name} has no bot token (details.chat.bot_token), so nothing can be posted`);
    const target = await this.channelOf(chat, connection, channel);
    try {
      const posted = await chat.postMessage({ channel: target.id, text, ...(threadTs ? { threadTs } : {}) });
      return { channel: target.name, channelId: posted.channel, ts: posted.ts };
    } catch (error) {
      throw toolErrorOf(connection, error);
    }
  }

  async close(): Promise<void> {}

  /** The member channel named `#name`: live membership, else the configured `bot_channels`. */
  private async channelOf(chat: Chat, connection: ToolConnection, name: string): Promise<ChatChannel> {
    const live = await this.membership.get(cacheKey(connection), () => chat.botMembership());
    const configured = configuredChannels(connection);
    const channels = live ? (live.complete ? live.channels : [...live.channels, ...configured]) : configured;
    const found = channels.find((c) => c.name === name);
    if (!found) throw new ToolError('NOT_FOUND', `the bot of ${connection.name} is not a member of '${name}'; invite it to the channel first`);
    return found;
  }
}

function postArguments(args: Record<string, unknown>): { channel: string; text: string; threadTs?: string } {
  const { channel, text } = args;
  const threadTs = args.thread_ts ?? args.threadTs;
  if (typeof channel !== 'string' || !CHANNEL.test(channel)) throw new ToolError('INVALID_ARGUMENT', USAGE);
  if (typeof text !== 'string' || text.trim() === '') throw new ToolError('INVALID_ARGUMENT', USAGE);
  if (text.length > MAX_CHAT_MESSAGE_CHARS) throw new ToolError('INVALID_ARGUMENT', `the text is longer than ${MAX_CHAT_MESSAGE_CHARS} characters`);
  if (threadTs !== undefined && (typeof threadTs !== 'string' || !THREAD_TS.test(threadTs))) throw new ToolError('INVALID_ARGUMENT', 'thread_ts must be a message timestamp such as 1700000000.000100');
  return { channel: `#${channel.replace(/^#/, '').toLowerCase()}`, text, ...(typeof threadTs === 'string' ? { threadTs } : {}) };
}

/** `bot_channels` of the details as configured (either key spelling). */
function configuredChannels(connection: ToolConnection): ChatChannel[] {
  const list = connection.details.bot_channels ?? connection.details.botChannels;
  if (!Array.isArray(list)) return [];
  return list
    .filter((c): c is { name: string; id: string } => typeof (c as { name?: unknown })?.name === 'string' && typeof (c as { id?: unknown })?.id === 'string')
    .map((c) => ({ id: c.id, name: `#${c.name.replace(/^#/, '').toLowerCase()}` }));
}

/** One membership per workspace and token: the token's digest, never the token, names it. */
function cacheKey(connection: ToolConnection): string {
  const token = String(connection.details.bot_token ?? connection.details.botToken ?? '');
  const apiUrl = String(connection.details.api_url ?? connection.details.apiUrl ?? '');
  return `${connection.name}|${apiUrl}|${createHash('sha256').update(token).digest('base64url').slice(0, 22)}`;
}

function toolErrorOf(connection: ToolConnection, error: unknown): unknown {
  if (!(error instanceof ChatError)) return error;
  const codes: Record<ChatError['code'], ToolErrorCode> = {
    NOT_FOUND: 'NOT_FOUND',
    INVALID_ARGUMENT: 'INVALID_ARGUMENT',
    // The bot's token refused is the connection's state, not the model's permission.
    PERMISSION_DENIED: 'FAILED_PRECONDITION',
    FAILED_PRECONDITION: 'FAILED_PRECONDITION',
    RESOURCE_EXHAUSTED: 'UNAVAILABLE',
    UNAVAILABLE: 'UNAVAILABLE',
  };
  return new ToolError(codes[error.code], `${connection.name}: ${error.message}`);
}
