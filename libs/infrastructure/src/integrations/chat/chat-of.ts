/**
 * The chat a connection names: `details.chat.bot_token` (a secret: sealed in events like every
 * token, opened only at use) and an optional `details.chat.api_url` (default Slack's
 * https://slack.com/api/; tests point it at a local server). Details arrive with secrets opened, in
 * either key spelling (the operator's snake_case or the wire's lowerCamelCase).
 */
import { DomainError, failedPrecondition } from '@svc/domain/shared/domain-error';
import { ChatError, type Chat } from './chat.port';
import { SlackChat } from './slack.chat';

export const CHAT_CONNECTION_TYPE = 'CONNECTION_TYPE_CHAT';

/** The `chat` section of a connection's opened details. */
export function chatSectionOf(connectionDetails: unknown): Record<string, unknown> {
  const details = connectionDetails as { chat?: unknown } | undefined;
  const chat = details?.chat;
  return chat && typeof chat === 'object' && !Array.isArray(chat) ? (chat as Record<string, unknown>) : {};
}

function stringField(section: Record<string, unknown>, snake: string, camel: string): string | undefined {
  const value = section[snake] ?? section[camel];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The chat of a section (`details.chat`, secrets opened), or null when it has no bot token. */
export function chatOfSection(section: Record<string, unknown>, timeoutMs?: number): Chat | null {
  const token = stringField(section, 'bot_token', 'botToken');
  if (token === undefined) return null;
  const apiUrl = stringField(section, 'api_url', 'apiUrl');
  return new SlackChat({ token, ...(apiUrl ? { apiUrl } : {}), ...(timeoutMs ? { timeoutMs } : {}) });
}

/**
 * A chat failure as the API answers it. The bot's token being refused is the connection's problem,
 * not the caller's permission: FAILED_PRECONDITION, as for code hosts.
 */
export function chatFailure(error: unknown): unknown {
  if (!(error instanceof ChatError)) return error;
  if (error.code === 'PERMISSION_DENIED') return failedPrecondition(error.message, 'CHAT_ACCESS_REFUSED');
  return new DomainError(error.code, error.message);
}

/** The chat of a connection with opened details; FAILED_PRECONDITION when it has no bot token. */
export function requireChat(connection: { name: string; connectionDetails?: unknown }, timeoutMs?: number): Chat {
  const chat = chatOfSection(chatSectionOf(connection.connectionDetails), timeoutMs);
  if (!chat) throw failedPrecondition(`${connection.name} has no bot token (details.chat.bot_token), so the chat cannot be reached`, 'CHAT_NOT_CONFIGURED');
  return chat;
}
