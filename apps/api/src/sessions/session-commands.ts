/**
 * Creating a session from the api (CreateSession, Write with parent, LaunchBacktest, InvokeTrigger):
 * resolves the parent and the ID from the request, then starts the session as every process does
 * (libs/application/src/sessions/start-session.ts), waiting for the sessions projection. A Write to
 * an existing session sends its command from the route itself (sessions.module.ts).
 */
import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { sessionsApi } from '@svc/contracts/sessions/sessions.contract';
import { agentSpec } from '@svc/domain/agents/agent.resource';
import type { Actor } from '@svc/domain/shared/decider';
import type { JsonObject } from '@svc/domain/shared/json-path';
import { storeOf } from '@svc/domain/shared/resource';
import { type MessagesInput, sessionNameOf, type SessionState } from '@svc/domain/sessions/session.decider';
import { sessionSpec } from '@svc/domain/sessions/session.resource';
import type { Settings } from '@svc/infrastructure/config/env';
import { READ_STORE, SETTINGS } from '@svc/infrastructure/nest/tokens';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { startSession } from '@svc/application/sessions/start-session';
import { ResourceReferences } from '../resource-kit/references';
import type { ResourceRequest } from '../resource-kit/request-envelopes';
import { chooseId } from '../resource-kit/resource-methods';

export interface NewSession {
  parent: unknown;
  sessionId?: string;
  settings: JsonObject;
  initialMessages?: unknown[];
  write?: MessagesInput;
}

@Injectable()
export class SessionCommands {
  private readonly references: ResourceReferences;

  constructor(
    private readonly bus: CommandBus,
    @Inject(READ_STORE) reads: ReadStore,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {
    this.references = new ResourceReferences(reads);
  }

  get typeHost(): string {
    return this.settings.typeHost;
  }

  async create(actor: Actor, requestId: string | undefined, session: NewSession): Promise<SessionState> {
    const parent = await this.references.existing(agentSpec, actor.org, session.parent, 'parent', true);
    const agent = await this.references.read(storeOf(agentSpec), actor.org, parent);
    const id = chooseId(sessionSpec, sessionsApi, { sessionId: session.sessionId, requestId } as ResourceRequest, actor);
    const started = await startSession(this.bus, {
      actor,
      requestId,
      id,
      name: sessionNameOf(parent, id),
      parent,
      agent,
      settings: session.settings,
      typeHost: this.typeHost,
      initialMessages: session.initialMessages,
      write: session.write,
      waitFor: storeOf(sessionSpec),
    });
    return started.state;
  }
}
