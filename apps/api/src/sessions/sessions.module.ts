import { Inject, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import {
  CreateSessionRequest,
  DescribeSessionsResponse,
  LaunchBacktestRequest,
  LaunchBacktestResponse,
  ReadRequest,
  ReadResponse,
  SESSION_METHODS as M,
  SessionListRequest,
  sessionsApi,
  WriteRequest,
  WriteResponse,
} from '@svc/contracts/sessions/sessions.contract';
import { type SessionEvent, sessionStreamId } from '@svc/contracts/sessions/session.events';
import { pageResponse, resourceResponse } from '@svc/contracts/shared/responses';
import { agentSpec } from '@svc/domain/agents/agent.resource';
import { invalid } from '@svc/domain/shared/domain-error';
import type { JsonObject } from '@svc/domain/shared/json-path';
import { type SessionCommand, sessionDecider, type SessionState } from '@svc/domain/sessions/session.decider';
import { sessionSpec } from '@svc/domain/sessions/session.resource';
import { storeOf } from '@svc/domain/shared/resource';
import { normaliseTime } from '@svc/domain/shared/time';
import { DecideAndAppend } from '@svc/application/commands/decide-and-append';
import { READ_STORE } from '@svc/infrastructure/nest/tokens';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { actorOf } from '../auth/principal';
import { MethodRegistry, type MethodCall } from '../http/method-registry';
import { defineMethod, listMethod } from '../resource-kit/method-builders';
import { ResourceReferences } from '../resource-kit/references';
import { nameChecker, nameRule } from '../resource-kit/request-envelopes';
import { SessionCommands } from './session-commands';
import { describe, incognitoScope, ReadSessionHandler, ReadSessionQuery, SESSION_LIST } from './session-reads';

const SETTINGS = ['associatedResources', 'incognito', 'automated', 'bashPrelude', 'runtime', 'inputs', 'dryRun', 'title', 'compatProvider', 'compatModel', 'compatReasoningEffort'] as const;
const checkSession = nameChecker(sessionSpec, 'id', 'session');
const checkAgentName = nameRule(/^agents\/[^/]+$/, 'agents/{agent}', 'agent_name');
/** The projection a session command waits for (read your writes). */
const SESSIONS = storeOf(sessionSpec);

/**
 * svc.nxagent.v2.AgentService's session methods beyond the kit's Get / Update / Delete (which the
 * sessions area registers): CreateSession, List and Describe, Write, Read and LaunchBacktest.
 */
@Injectable()
class SessionMethods implements OnModuleInit {
  private readonly references: ResourceReferences;

  constructor(
    private readonly registry: MethodRegistry,
    private readonly queries: QueryBus,
    private readonly bus: CommandBus,
    private readonly sessions: SessionCommands,
    @Inject(READ_STORE) reads: ReadStore,
  ) {
    this.references = new ResourceReferences(reads);
  }

  onModuleInit(): void {
    const scope = async ({ principal, request }: MethodCall<SessionListRequest>) => ({
      ...(request.parent ? { _parent: await this.references.existing(agentSpec, principal.org, request.parent, 'parent') } : {}),
      ...incognitoScope(request),
    });
    this.registry.register(
      defineMethod(sessionsApi, M.create, { request: CreateSessionRequest, response: resourceResponse(sessionsApi) }, 'write', ({ principal, request }: MethodCall<CreateSessionRequest>) =>
        this.createSession(actorOf(principal), request),
      ),
      listMethod(this.queries, sessionsApi, M.list, { request: SessionListRequest, spec: SESSION_LIST, key: 'sessions', scope, response: pageResponse(sessionsApi) }),
      listMethod(this.queries, sessionsApi, M.describe, {
        request: SessionListRequest,
        spec: { ...SESSION_LIST, present: describe },
        key: 'sessionDescriptions',
        scope,
        response: DescribeSessionsResponse,
      }),
      defineMethod(sessionsApi, M.write, { request: WriteRequest, response: WriteResponse }, 'write', ({ principal, request }: MethodCall<WriteRequest>) => this.write(actorOf(principal), request)),
      defineMethod(sessionsApi, M.read, { request: ReadRequest, response: ReadResponse }, 'read', ({ principal, request }: MethodCall<ReadRequest>) =>
        this.queries.execute<ReadSessionQuery, ReadResponse>(new ReadSessionQuery(principal.org, checkSession(request.session), request.sessionOffset ?? 0)),
      ),
      defineMethod(sessionsApi, M.launchBacktest, { request: LaunchBacktestRequest, response: LaunchBacktestResponse }, 'write', ({ principal, request }: MethodCall<LaunchBacktestRequest>) =>
        this.launchBacktest(actorOf(principal), request),
      ),
    );
  }

  private async createSession(actor: ReturnType<typeof actorOf>, request: CreateSessionRequest) {
    const settings: JsonObject = {};
    for (const field of SETTINGS) if (request[field] !== undefined) settings[field] = request[field];
    const state = await this.sessions.create(actor, request.requestId, {
      parent: request.parent,
      sessionId: request.sessionId,
      settings,
      initialMessages: request.initialMessages,
    });
    return { session: state.resource.resource };
  }

  /**
   * Spec, Write rule 1: a set session wins whatever else is set (parent is then not read); parent
   * with no session creates one; neither is refused.
   */
  private async write(actor: ReturnType<typeof actorOf>, request: WriteRequest) {
    const hasSession = request.session !== undefined && request.session !== '';
    const hasParent = request.parent !== undefined && request.parent !== '';
    if (!hasSession && !hasParent) throw invalid('either session or parent must be set');
    if (request.messages.length === 0) throw invalid('messages must not be empty');
    const input = { messages: request.messages, writeMode: request.writeMode ?? 'WRITE_MODE_CHECKPOINT' } as const;
    if (!hasSession) {
      const state = await this.sessions.create(actor, request.requestId, { parent: request.parent, settings: {}, write: input });
      return { session: createdName(state), sessionLength: state.length };
    }
    const name = checkSession(request.session);
    const command: SessionCommand = { type: 'Write', actor, name, typeHost: this.sessions.typeHost, ...input };
    const { state } = await this.bus.execute(
      new DecideAndAppend<SessionState, SessionCommand, SessionEvent>(
        { decider: sessionDecider, streamId: sessionStreamId(actor.org, name), command, context: { actor, requestId: request.requestId } },
        SESSIONS,
      ),
    );
    return { session: name, sessionLength: state.length };
  }

  /** A dry-run session of the agent "at" mock_time (spec: LaunchBacktest). */
  private async launchBacktest(actor: ReturnType<typeof actorOf>, request: LaunchBacktestRequest) {
    const parent = checkAgentName(request.agentName);
    const mockTime = normaliseTime(request.mockTime, 'mock_time');
    if (mockTime >= actor.now) throw invalid(`mock_time must be in the past, got '${request.mockTime}'`);
    const toolCallId = request.toolCallId ?? '';
    const settings: JsonObject = { dryRun: true, mockTime, ...(toolCallId === '' ? {} : { associatedResources: [`tool-calls/${toolCallId}`] }) };
    const state = await this.sessions.create(actor, request.requestId, { parent, settings });
    return { session: createdName(state) };
  }
}

/** The name of a session its create just answered (an internal fault if the state has none). */
function createdName(state: SessionState): string {
  const name = state.resource.resource?.name;
  if (typeof name !== 'string') throw new Error('a created session has no name');
  return name;
}

@Module({ providers: [SessionMethods, SessionCommands, ReadSessionHandler] })
export class SessionsModule {}
