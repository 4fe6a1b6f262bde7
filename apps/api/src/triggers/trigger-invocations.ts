/**
 * InvokeTrigger's command path, shared by the API method and the chat event dispatcher: checks the
 * request (libs/domain/src/triggers/invocation.ts), then starts the session through the sessions'
 * own creation path (SessionCommands.create, as Write with a parent does) with the seed as a
 * checkpoint write, so the runtime answers it. The session ID and request id derive from the
 * occasion (an idempotency key's window, a chat delivery), so a repeat finds the first session.
 */
import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { agentSpec } from '@svc/domain/agents/agent.resource';
import { failedPrecondition } from '@svc/domain/shared/domain-error';
import type { Actor } from '@svc/domain/shared/decider';
import type { JsonObject } from '@svc/domain/shared/json-path';
import { storeOf } from '@svc/domain/shared/resource';
import { sessionSpec } from '@svc/domain/sessions/session.resource';
import {
  chatConnectionOf,
  chatMessageOccasion,
  checkChatInvocation,
  checkInvokeArms,
  idempotencyOccasion,
  isRecentSeedOf,
  occasionSessionKeys,
  seedActivity,
  type ChatContext,
  type SessionOrigin,
  workspaceOrganization,
} from '@svc/domain/triggers/invocation';
import { triggerSpec } from '@svc/domain/triggers/trigger.resource';
import { CommandService } from '@svc/infrastructure/commands/command-service';
import { READ_STORE } from '@svc/infrastructure/nest/tokens';
import { TriggerFire } from '@svc/application/triggers/trigger-fire';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { chatConnectionsOfTeam } from '@svc/application/areas/connections/chat-connections';
import { ChatPort } from '../chat/chat-port.module';
import { ResourceReferences } from '../resource-kit/references';
import { SessionCommands } from '../sessions/session-commands';

export interface Invocation {
  name: unknown;
  message?: string;
  chat?: ChatContext;
  idempotencyKey?: string;
  /** AIP-155 request_id of the API call: a retry names the same session. */
  requestId?: string;
  /** An occasion the caller derives; wins over the others (a chat message is its own occasion). */
  occasion?: string;
}

/** Most chat connections one workspace is looked up in: bounds what one call reads. */
const MAX_WORKSPACE_CONNECTIONS = 100;

@Injectable()
export class TriggerInvocations {
  private readonly references: ResourceReferences;
  private readonly firing: TriggerFire;

  constructor(
    private readonly sessions: SessionCommands,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    bus: CommandBus,
    commands: CommandService,
    private readonly chatPort: ChatPort,
  ) {
    this.references = new ResourceReferences(reads);
    this.firing = new TriggerFire(bus, commands, sessions.typeHost);
  }

  /**
   * The chat arm sent with machine credentials (`actor.org` empty): the organization is the one
   * whose chat connection belongs to the context's workspace; then the call is judged as any other.
   */
  async invokeForWorkspace(actor: Actor, invocation: Invocation): Promise<{ trigger: JsonObject; session: string }> {
    const chat = invocation.chat ?? {};
    const connections = chat.teamId ? await chatConnectionsOfTeam(this.reads, chat.teamId, MAX_WORKSPACE_CONNECTIONS) : [];
    const org = workspaceOrganization(chat, connections.map((c) => String(c._org)));
    return this.invoke({ ...actor, org }, invocation);
  }

  /** The trigger (response shape) and the name of the session the invocation started or found. */
  async invoke(actor: Actor, invocation: Invocation): Promise<{ trigger: JsonObject; session: string }> {
    const arm = checkInvokeArms(invocation.message, invocation.chat);
    const name = await this.references.existing(triggerSpec, actor.org, invocation.name, 'name', true);
    const trigger = (await this.references.read(storeOf(triggerSpec), actor.org, name)) as JsonObject;
    const origin: SessionOrigin = { trigger: name };
    let text = invocation.message ?? '';
    if (arm === 'chat') {
      const connectionName = chatConnectionOf(trigger.configuration);
      const connection = connectionName ? await this.references.read('connections', actor.org, connectionName) : null;
      // The channel id comes from the bot's membership, read live through the chat port when it can be.
      const live = connection ? await this.chatPort.liveBotChannels(actor.org, connection) : undefined;
      origin.chat = checkChatInvocation(trigger, invocation.chat ?? {}, connection, live);
      text = origin.chat.text ?? '';
    }
    const agent = String(trigger.agent);
    const now = Date.parse(actor.now);
    let occasion = invocation.occasion ?? (origin.chat && chatMessageOccasion(origin.chat));
    const key = invocation.idempotencyKey;
    if (occasion === undefined && key) {
      origin.idempotencyKey = key;
      // A key used shortly before this window began named the previous window's session.
      const previous = occasionSessionKeys(actor.org, name, agent, idempotencyOccasion(key, now, -1)).name;
      if (isRecentSeedOf(await this.references.read(storeOf(sessionSpec), actor.org, previous), key, now)) return { trigger, session: previous };
      occasion = idempotencyOccasion(key, now);
    }
    if (occasion === undefined && invocation.requestId) occasion = `request|${invocation.requestId}`;
    // The chat arm is automation (a dispatcher acting on a message): an agent that is off is not
    // started, and the skip is recorded on the trigger's occasions as the reactors record theirs.
    if (origin.chat && (await this.references.read(storeOf(agentSpec), actor.org, agent))?.state === 'AGENT_STATE_OFF') {
      await this.firing.skip({ org: actor.org, name, agent }, { key: occasion ?? `chat|${randomUUID()}`, source: 'chat', time: actor.now });
      throw failedPrecondition(`agent ${agent} is AGENT_STATE_OFF: a chat message does not start it (the skip is recorded on ${name})`);
    }
    const keys = occasion ? occasionSessionKeys(actor.org, name, agent, occasion) : undefined;
    const state = await this.sessions.create(actor, keys?.requestId, {
      parent: agent,
      sessionId: keys?.id,
      settings: { origin: origin as unknown as JsonObject, associatedResources: [name] },
      write: { messages: [seedActivity(this.sessions.typeHost, text)], writeMode: 'WRITE_MODE_CHECKPOINT' },
    });
    return { trigger, session: String(state.resource.resource?.name) };
  }
}
