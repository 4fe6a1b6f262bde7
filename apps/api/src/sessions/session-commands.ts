/**
 * The session write path: every session command goes down the command bus (DecideAndAppend on the
 * session stream, waiting for the sessions projection). Creating a session (CreateSession, Write
 * with parent, LaunchBacktest) is three steps: decide it once without appending (bad input claims
 * nothing), claim its name globally, then start its stream.
 */
import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { sessionsApi } from '@svc/contracts/sessions/sessions.contract';
import { sessionStreamId, type SessionEvent } from '@svc/contracts/sessions/session.events';
import { agentSpec } from '@svc/domain/agents/agent.resource';
import type { Actor } from '@svc/domain/shared/decider';
import type { JsonObject } from '@svc/domain/shared/json-path';
import { storeOf } from '@svc/domain/shared/resource';
import { sessionDecider, sessionNameOf, type MessagesInput, type SessionCommand, type SessionState } from '@svc/domain/sessions/session.decider';
import { sessionSpec } from '@svc/domain/sessions/session.resource';
import type { Handled } from '@svc/infrastructure/commands/command-service';
import type { Settings } from '@svc/infrastructure/config/env';
import { READ_STORE, SETTINGS } from '@svc/infrastructure/nest/tokens';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { DecideAndAppend } from '@svc/application/commands/decide-and-append';
import { ResourceReferences } from '../resource-kit/references';
import { chooseId, type ResourceRequest } from '../resource-kit/request-envelopes';
import { ClaimSessionName } from '@svc/application/sessions/claim-session-name';

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
    const name = sessionNameOf(parent, id);
    const command: SessionCommand = {
      type: 'CreateSession',
      actor,
      id,
      parent,
      settings: session.settings,
      refs: new Map([[parent, agent]]),
      typeHost: this.typeHost,
      initialMessages: session.initialMessages,
      write: session.write,
    };
    await this.send(name, requestId, command, { dryRun: true });
    await this.bus.execute(new ClaimSessionName(name, actor, requestId));
    return (await this.send(name, requestId, command, { create: true })).state;
  }

  send(name: string, requestId: string | undefined, command: SessionCommand, options: { create?: boolean; dryRun?: boolean } = {}): Promise<Handled<SessionState>> {
    return this.bus.execute(
      new DecideAndAppend<SessionState, SessionCommand, SessionEvent>(
        { decider: sessionDecider, streamId: sessionStreamId(command.actor.org, name), command, context: { actor: command.actor, requestId }, ...options },
        storeOf(sessionSpec),
      ),
    );
  }
}
