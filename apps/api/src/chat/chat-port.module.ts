/**
 * The chat port as the api uses it (docs/decisions.md, "Chat port"): a connection's chat with its
 * bot token opened per use, and the bot's live channel membership, cached per connection for
 * MEMBERSHIP_TTL_MS. When a connection has no bot token, or the platform cannot be read, the
 * configured `bot_channels` stand in (the fallback), so webhooks and triggers keep working.
 * Trigger writes get the membership as facts of their validation (CHAT_MEMBERSHIP_FACT).
 */
import { Injectable, Logger, Module, type OnModuleInit } from '@nestjs/common';
import type { JsonObject } from '@svc/domain/shared/json-path';
import type { Facts, References } from '@svc/domain/shared/resource';
import { type BotChannel, CHAT_CONNECTION_TYPE, CHAT_MEMBERSHIP_FACT, type ChatHandle, chatDetailsOf } from '@svc/domain/triggers/chat-connection';
import { triggerSpec } from '@svc/domain/triggers/trigger.resource';
import { chatFailure, chatOfSection, chatSectionOf, requireChat } from '@svc/infrastructure/integrations/chat/chat-of';
import { ChatError, type Chat } from '@svc/infrastructure/integrations/chat/chat.port';
import { MembershipCache } from '@svc/infrastructure/integrations/chat/membership-cache';
import { ConnectionCredentials, ConnectionsModule } from '../connections/connections.module';
import { ResourceKit } from '../resource-kit/resource-kit';

/**
 * A chat call gives up after this long (ours): a trigger write waits at most this per Slack request,
 * and a webhook delivery stays within the 3 s Slack gives it to be answered.
 */
const CHAT_TIMEOUT_MS = 2_500;
/** How long a handle's e-mail resolves to the same user (ours), as the membership. */
const HANDLE_TTL_MS = 60_000;
/** Handles of one connection resolved by e-mail (ours): bounds the lookups of one read. */
const MAX_RESOLVED_HANDLES = 50;

@Injectable()
export class ChatPort {
  private readonly logger = new Logger('chat');
  private readonly membership = new MembershipCache();
  private readonly handleIds = new Map<string, { userId: string; expires: number }>();

  constructor(private readonly credentials: ConnectionCredentials) {}

  /**
   * Runs `use` on the chat a connection of `org` names (NOT_FOUND outside the organization;
   * FAILED_PRECONDITION when it is no chat connection or has no bot token), the chat's failures
   * answered with the API's codes.
   */
  async withChat<T>(org: string, name: string, use: (chat: Chat) => Promise<T>): Promise<T> {
    const connection = await this.credentials.resolve(org, name);
    if (connection.connectionType !== CHAT_CONNECTION_TYPE) throw chatFailure(new ChatError('FAILED_PRECONDITION', `${name} is not a chat connection`));
    try {
      return await use(requireChat({ name, connectionDetails: connection.connectionDetails }, CHAT_TIMEOUT_MS));
    } catch (error) {
      throw chatFailure(error);
    }
  }

  /** The chat of a chat connection of `org` (its bot token opened), or null when it has none. */
  async chatOf(org: string, name: string): Promise<Chat | null> {
    const connection = await this.credentials.resolve(org, name);
    if (connection.connectionType !== CHAT_CONNECTION_TYPE) return null;
    return chatOfSection(chatSectionOf(connection.connectionDetails), CHAT_TIMEOUT_MS);
  }

  /**
   * The channels the bot of a chat connection document (as stored, response shape) is a member of,
   * read live; undefined when they cannot be (no bot token, the platform unavailable): the caller
   * then uses the configured `bot_channels`. A read the page bound cut short is completed with them.
   */
  async liveBotChannels(org: string, connection: JsonObject): Promise<BotChannel[] | undefined> {
    if (connection.connectionType !== CHAT_CONNECTION_TYPE) return undefined;
    const name = String(connection.name);
    const read = await this.membership.get(`${org}|${name}`, async () => {
      const resolved = await this.credentials.resolve(org, name);
      const chat = chatOfSection(chatSectionOf(resolved.connectionDetails), CHAT_TIMEOUT_MS);
      if (!chat) return null;
      try {
        return await chat.botMembership();
      } catch (error) {
        // The message names the method and Slack's error code, never the token.
        this.logger.warn(`the bot membership of ${name} in ${org} could not be read (${error instanceof Error ? error.message : 'failed'}); its configured bot_channels are used`);
        throw error;
      }
    });
    if (!read) return undefined;
    if (read.complete) return read.channels;
    const known = new Set(read.channels.map((c) => c.name));
    return [...read.channels, ...chatDetailsOf(connection).botChannels.filter((c) => !known.has(c.name))];
  }

  /**
   * The handles of a chat connection document with their user ids: a handle the configuration names
   * by `email` is looked up (`users.lookupByEmail`, cached HANDLE_TTL_MS); one that cannot be
   * resolved keeps an empty id and is mentioned by no one.
   */
  async resolvedHandles(org: string, connection: JsonObject): Promise<ChatHandle[]> {
    const handles = chatDetailsOf(connection).handles;
    const pending = handles.filter((h) => h.userId === '' && h.email).slice(0, MAX_RESOLVED_HANDLES);
    if (pending.length === 0) return handles;
    const name = String(connection.name);
    const now = Date.now();
    const resolved = new Map<string, string>();
    let chat: Chat | null | undefined;
    for (const handle of pending) {
      const key = `${org}|${name}|${handle.email}`;
      const cached = this.handleIds.get(key);
      if (cached && cached.expires > now) {
        resolved.set(handle.id, cached.userId);
        continue;
      }
      try {
        if (chat === undefined) chat = await this.chatOf(org, name);
        const user = chat ? await chat.userByEmail(String(handle.email)) : null;
        const userId = user && !user.deleted ? user.id : '';
        if (this.handleIds.size >= 1_000) this.handleIds.clear();
        this.handleIds.set(key, { userId, expires: now + HANDLE_TTL_MS });
        resolved.set(handle.id, userId);
      } catch (error) {
        // Not remembered: the next delivery tries again; the rest wait for it too.
        this.logger.warn(`the handle ${handle.id} of ${name} in ${org} could not be resolved (${error instanceof Error ? error.message : 'failed'})`);
        break;
      }
    }
    return handles.map((h) => (resolved.has(h.id) ? { ...h, userId: resolved.get(h.id) ?? '' } : h));
  }

  /** The live membership of each chat connection among `refs`, as the facts trigger validation reads. */
  async membershipFacts(org: string, refs: References): Promise<Facts | undefined> {
    const membership: Record<string, BotChannel[]> = {};
    for (const [name, doc] of refs) {
      if (!doc || doc.connectionType !== CHAT_CONNECTION_TYPE) continue;
      const live = await this.liveBotChannels(org, doc);
      if (live) membership[name] = live;
    }
    return Object.keys(membership).length > 0 ? { [CHAT_MEMBERSHIP_FACT]: membership } : undefined;
  }
}

/** Trigger creates and updates are judged on the live membership (the kit asks before deciding). */
@Injectable()
class TriggerMembershipFacts implements OnModuleInit {
  constructor(
    private readonly kit: ResourceKit,
    private readonly chat: ChatPort,
  ) {}

  onModuleInit(): void {
    this.kit.provideFacts(triggerSpec.kind, (org, refs) => this.chat.membershipFacts(org, refs));
  }
}

@Module({ imports: [ConnectionsModule], providers: [ChatPort, TriggerMembershipFacts], exports: [ChatPort] })
export class ChatPortModule {}
