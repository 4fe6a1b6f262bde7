/**
 * The internal chat event dispatcher: a verified `event_callback` carrying a message fires the
 * organization's enabled chat triggers on that connection (libs/domain/src/triggers/chat-routing.ts),
 * each through InvokeTrigger's chat arm. The session derives from the message itself (workspace,
 * channel, ts), so a delivery the platform retries, or the `message` and `app_mention` events of
 * one message, start one session per trigger.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Actor } from '@svc/domain/shared/decider';
import { DomainError } from '@svc/domain/shared/domain-error';
import type { JsonObject } from '@svc/domain/shared/json-path';
import { chatDetailsOf } from '@svc/domain/triggers/chat-connection';
import { chatMessageOf, chatTriggersFired } from '@svc/domain/triggers/chat-routing';
import { READ_STORE } from '@svc/infrastructure/nest/tokens';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { AGENT_PERMISSIONS, AGENT_SERVICE_IDENTITY } from '../auth/principal';
import { toResponse } from '../resource-kit/presentation';
import { ChatPort } from './chat-port.module';
import { TriggerInvocations } from '../triggers/trigger-invocations';

/** Most chat triggers one message may fire (ours): bounds the work of one delivery. */
export const MAX_TRIGGERS_PER_CHAT_EVENT = 100;

export interface DispatchResult {
  trigger: string;
  session?: string;
  error?: { status: string; message: string };
}

@Injectable()
export class ChatEventDispatcher {
  private readonly logger = new Logger('chat');

  constructor(
    private readonly invocations: TriggerInvocations,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly chatPort: ChatPort,
  ) {}

  /** Fires the triggers of one verified delivery for one connection (org and stored document). */
  async dispatch(org: string, connection: JsonObject, envelope: JsonObject): Promise<DispatchResult[]> {
    const message = chatMessageOf(envelope, String(connection.name));
    if (!message) return [];
    const docs = await this.reads
      .collection('triggers')
      .find({ _org: org, enabled: true, deleteTime: { $exists: false } }, { sort: { name: 1 } });
    const triggers = docs.map((doc) => toResponse(doc) as JsonObject);
    // The channel is known by the bot's live membership when it can be read, else as configured;
    // handles named by e-mail are resolved to the user ids mentions carry.
    const details = chatDetailsOf(connection);
    const live = await this.chatPort.liveBotChannels(org, connection);
    const handles = await this.chatPort.resolvedHandles(org, connection);
    const fired = chatTriggersFired(message, { ...details, botChannels: live ?? details.botChannels, handles }, triggers).slice(0, MAX_TRIGGERS_PER_CHAT_EVENT);
    const actor: Actor = { org, actor: AGENT_SERVICE_IDENTITY, subject: AGENT_SERVICE_IDENTITY, permissions: [...AGENT_PERMISSIONS], now: new Date().toISOString() };
    const results: DispatchResult[] = [];
    for (const { trigger, chat } of fired) {
      try {
        const { session } = await this.invocations.invoke(actor, { name: trigger, chat });
        results.push({ trigger, session });
      } catch (error) {
        // One trigger's failure (its agent deleted, say) does not keep the others from firing.
        if (!(error instanceof DomainError)) throw error;
        this.logger.warn(`chat trigger ${trigger} of ${org} did not fire: ${error.message}`);
        results.push({ trigger, error: { status: error.code, message: error.message } });
      }
    }
    return results;
  }
}
