/**
 * svc.monitoring_plans.v1.ChangeMonitorNotificationsService (spec part 2; paths and shapes ours,
 * docs/decisions.md, "Change-monitor notifications"): the caller's own setup. Get answers it (the
 * defaults when never written); UpdateMyChangeMonitorNotificationPreference toggles chat DMs and
 * links the code-host login; VerifyMyChangeMonitorSlackDM finds the caller's chat user (by id or
 * e-mail), sends a test DM through the chat port, and stores the destination it reached. Each write
 * is one Put on the member's setup stream. ChangeMonitorDms is the seam monitoring plans call.
 */
import { Inject, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import {
  ChangeMonitorSetupResponse,
  changeMonitorSetupsApi,
  GetMyChangeMonitorSetupRequest,
  UpdateMyChangeMonitorNotificationPreferenceRequest,
  VerifyMyChangeMonitorSlackDMRequest,
  VerifyMyChangeMonitorSlackDMResponse,
} from '@svc/contracts/changemonitor/changemonitor.contract';
import { type ChangeMonitorDmAuthor, type ChangeMonitorDmOutcome, sendChangeMonitorDm } from '@svc/application/areas/changemonitor';
import { changeMonitorSetupSpec, defaultSetup, setupNameOf } from '@svc/domain/changemonitor/change-monitor-setup.resource';
import { failedPrecondition, invalid, notFound } from '@svc/domain/shared/domain-error';
import { isPlainObject, type JsonObject } from '@svc/domain/shared/json-path';
import type { Actor } from '@svc/domain/shared/decider';
import type { Chat, ChatUser } from '@svc/infrastructure/integrations/chat/chat.port';
import { READ_STORE } from '@svc/infrastructure/nest/tokens';
import { docId } from '@svc/infrastructure/projection/projection';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { actorOf } from '../auth/principal';
import { ChatPort, ChatPortModule } from '../chat/chat-port.module';
import { MethodRegistry } from '../http/method-registry';
import { defineMethod, type ServiceSettings } from '../resource-kit/method-builders';
import { toResponse } from '../resource-kit/presentation';
import { ResourceKit } from '../resource-kit/resource-kit';

/** Each method acts on the caller's own setup: no permission beyond membership (docs/decisions.md). */
const SERVICE: ServiceSettings = { service: changeMonitorSetupsApi.service };

@Injectable()
export class ChangeMonitorDms {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly chat: ChatPort,
  ) {}

  /**
   * Sends `text` to the author's chat DM when their setup links a verified destination and enables
   * DMs; never throws (PostPlanComment's DM is best-effort and independent of the comment).
   */
  send(org: string, author: ChangeMonitorDmAuthor, text: string): Promise<ChangeMonitorDmOutcome> {
    return sendChangeMonitorDm({ reads: this.reads, chatOf: (o, name) => this.chat.chatOf(o, name) }, org, author, text);
  }
}

@Injectable()
class ChangeMonitorMethods implements OnModuleInit {
  constructor(
    private readonly registry: MethodRegistry,
    private readonly kit: ResourceKit,
    private readonly chat: ChatPort,
    @Inject(READ_STORE) private readonly reads: ReadStore,
  ) {}

  onModuleInit(): void {
    this.registry.register(
      {
        ...defineMethod(SERVICE, 'GetMyChangeMonitorSetup', { request: GetMyChangeMonitorSetupRequest, response: ChangeMonitorSetupResponse }, 'read', async ({ principal }) => ({
          changeMonitorSetup: await this.setupOf(actorOf(principal)),
        })),
        effect: { reads: [changeMonitorSetupSpec.collection] },
      },
      defineMethod(
        SERVICE,
        'UpdateMyChangeMonitorNotificationPreference',
        { request: UpdateMyChangeMonitorNotificationPreferenceRequest, response: ChangeMonitorSetupResponse },
        'write',
        async ({ principal, request }) => {
          const actor = actorOf(principal);
          const resource: JsonObject = { user: actor.subject, chatDmEnabled: request.chatDmEnabled };
          // Logins are compared as the code host compares them: case-insensitively.
          if (request.codehostLogin) resource.codehostLogin = request.codehostLogin.toLowerCase();
          return { changeMonitorSetup: await this.put(actor, request.requestId, resource) };
        },
      ),
      {
        ...defineMethod(
          SERVICE,
          'VerifyMyChangeMonitorSlackDM',
          { request: VerifyMyChangeMonitorSlackDMRequest, response: VerifyMyChangeMonitorSlackDMResponse },
          'write',
          ({ principal, request }) => this.verify(actorOf(principal), request),
        ),
        effect: { appends: ['command Put'], reads: [changeMonitorSetupSpec.collection] },
      },
    );
  }

  /** Finds the caller's chat user, sends the test DM, then stores the destination it reached (one Put). */
  private async verify(actor: Actor, request: VerifyMyChangeMonitorSlackDMRequest): Promise<VerifyMyChangeMonitorSlackDMResponse> {
    const current = await this.setupOf(actor);
    const previous = isPlainObject(current.verifiedChatDestination) ? current.verifiedChatDestination : undefined;
    const text = `Change-monitor test: updates about the pull requests of ${actor.subject} in ${actor.org} will reach you here.`;
    const reached = await this.chat.withChat(actor.org, request.chatConnection, async (chat) => {
      const user = await this.chatUserOf(chat, request, previous);
      const channel = await chat.openDirectMessage(user.id);
      const posted = await chat.postMessage({ channel, text });
      return { user, channel, ts: posted.ts };
    });
    const destination = { chatConnection: request.chatConnection, chatUserId: reached.user.id, channelId: reached.channel, verifyTime: actor.now };
    const setup = await this.put(actor, request.requestId, { user: actor.subject, verifiedChatDestination: destination });
    return { changeMonitorSetup: setup, messageTs: reached.ts };
  }

  /** The caller's setup from its read model, or the defaults of one never written. */
  private async setupOf(actor: Actor): Promise<JsonObject> {
    const name = setupNameOf(actor.subject);
    const doc = await this.reads.collection(changeMonitorSetupSpec.collection).findOne({ _id: docId(actor.org, name) });
    return doc ? (toResponse(doc) as JsonObject) : defaultSetup(name, actor.subject);
  }

  private put(actor: Actor, requestId: string | undefined, resource: JsonObject): Promise<JsonObject> {
    const name = setupNameOf(actor.subject);
    const id = name.slice(name.indexOf('/') + 1);
    return this.kit.send(changeMonitorSetupSpec, requestId, name, { type: 'Put', actor, id, resource }) as Promise<JsonObject>;
  }

  /** The chat user the DM goes to: named by id, found by e-mail, or the one verified before on this connection. */
  private async chatUserOf(chat: Chat, request: VerifyMyChangeMonitorSlackDMRequest, previous: JsonObject | undefined): Promise<ChatUser> {
    let user: ChatUser | null;
    if (request.chatUserId) user = await chat.userById(request.chatUserId);
    else if (request.email) user = await chat.userByEmail(request.email);
    else if (previous && previous.chatConnection === request.chatConnection && typeof previous.chatUserId === 'string') user = await chat.userById(previous.chatUserId);
    else throw invalid('chat_user_id or email is required: nothing on this connection was verified before');
    if (!user) throw notFound(`no user of ${request.chatConnection} has that ${request.chatUserId ? 'id' : 'e-mail address'}`);
    if (user.deleted || user.isBot) throw failedPrecondition(`the chat user ${user.id} is ${user.deleted ? 'deactivated' : 'a bot'}: a DM cannot reach a person there`);
    return user;
  }
}

@Module({ imports: [ChatPortModule], providers: [ChangeMonitorMethods, ChangeMonitorDms], exports: [ChangeMonitorDms] })
export class ChangeMonitorModule {}
