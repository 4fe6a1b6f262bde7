/**
 * Runs one requested turn of a session, idempotently: the turn id names the work, so running it
 * again (a retry, a restart after a crash, a second process) finds the first result instead of
 * writing a second one. Load the session's log, skip a turn already completed, mark it started, run
 * the runtime, and commit its activities and conclusion with CompleteTurn through the session
 * decider, whose request id is the turn id (docs/decisions.md, "Agent runtime").
 */
import {
  ACTIVITY_TYPE,
  type AnyMessage,
  SESSION_EVENTS,
  type SessionEvent,
  type SessionResource,
  sessionStreamId,
} from '@svc/contracts/sessions/session.events';
import { agentSpec } from '@svc/domain/agents/agent.resource';
import { AFTER_POSITION_KEY } from '../../notifications/notification-bus.port';
import type { Actor } from '@svc/domain/shared/decider';
import { resourceStreamId } from '@svc/domain/shared/resource';
import { resourceDecider } from '@svc/domain/shared/resource.decider';
import { type SessionCommand, sessionDecider, type SessionState } from '@svc/domain/sessions/session.decider';
import type { CommandService } from '../../commands/command-service';
import { upcast } from '../../commands/upcasters';
import type { EventStore } from '../../event-store/event-store.port';
import {
  type Activity,
  type AgentRuntime,
  type EphemeralNotification,
  type RuntimeAgent,
  type RuntimeConnectionBinding,
  RuntimeFault,
  type RuntimeSessionSettings,
  type TurnResult,
} from './agent-runtime.port';

/** Publishes an ephemeral notification (the notification bus's `publish`). */
export type PublishNotification = (org: string, topic: string, notification: Record<string, unknown>) => Promise<void>;

export interface TurnRef {
  org: string;
  /** `agents/{agent}/sessions/{session}` */
  sessionName: string;
  turnId: string;
  /** Log position (positionToString) of the event that requested the turn: its notifications follow it (AFTER_POSITION_KEY). */
  after?: string;
}

export type TurnOutcome = 'completed' | 'answered-failure' | 'already-completed';

/** Ephemeral notifications waiting to be published for one turn; past this they are dropped (never buffered without bound). */
export const MAX_PENDING_NOTIFICATIONS = 1000;

const agentFold = resourceDecider(agentSpec);

export interface TurnRunnerOptions {
  events: EventStore;
  commands: CommandService;
  runtime: AgentRuntime;
  typeHost: string;
  publish?: PublishNotification;
  log?: (line: string) => void;
  now?: () => Date;
}

export class TurnRunner {
  constructor(private readonly options: TurnRunnerOptions) {}

  async run(ref: TurnRef, signal?: AbortSignal): Promise<TurnOutcome> {
    const { commands, runtime, typeHost } = this.options;
    const session = await this.loadSession(ref);
    if (!session.state.openTurns.includes(ref.turnId)) return 'already-completed';
    const agentName = ref.sessionName.slice(0, ref.sessionName.indexOf('/sessions/'));
    const actor = this.actor(ref.org, agentName);
    const streamId = sessionStreamId(ref.org, ref.sessionName);
    const send = (command: SessionCommand, requestId: string) =>
      commands.handle({ decider: sessionDecider, streamId, command, context: { actor: command.actor, requestId, causationId: ref.turnId } });

    if (!session.state.startedTurns.includes(ref.turnId)) await send({ type: 'StartTurn', actor, turnId: ref.turnId }, `${ref.turnId}-start`);

    let result: TurnResult;
    let outcome: TurnOutcome = 'completed';
    const publisher = new TurnPublisher(ref, typeHost, this.options.publish, this.options.log);
    try {
      const agent = await this.loadAgent(ref.org, agentName);
      result = await runtime.runTurn(
        { session: { name: ref.sessionName, org: ref.org, settings: session.settings }, agent, messages: session.messages, pending: session.pending, turnId: ref.turnId, signal },
        (n) => publisher.emit(n),
      );
    } catch (error) {
      if (!(error instanceof RuntimeFault) || error.retryable) throw error;
      // Retrying cannot help (a refused key, a provider that is not configured): say so in the session.
      result = { activities: [{ assistant: { text: { text: `The agent runtime could not answer: ${error.message}` } } }] };
      outcome = 'answered-failure';
    } finally {
      await publisher.drain();
    }
    const messages: AnyMessage[] = result.activities.map((activity) => ({ '@type': `${typeHost}/${ACTIVITY_TYPE}`, ...activity }));
    const done = await send(
      { type: 'CompleteTurn', actor: this.actor(ref.org, agentName), turnId: ref.turnId, messages, conclusion: result.conclusion?.done },
      ref.turnId,
    );
    return done.replayed || done.events.length === 0 ? 'already-completed' : outcome;
  }

  private actor(org: string, agentName: string): Actor {
    // The agent speaks in its session: its messages are authored by the agent itself.
    return { org, actor: agentName, subject: agentName, permissions: [], now: (this.options.now?.() ?? new Date()).toISOString() };
  }

  /** The session's state, settings and the messages the turn sees, from its own log. */
  private async loadSession(ref: TurnRef) {
    const recorded = await this.options.events.readStream(sessionStreamId(ref.org, ref.sessionName));
    let state: SessionState = sessionDecider.initialState();
    let resource: Partial<SessionResource> = {};
    let throughOffset = Number.POSITIVE_INFINITY;
    let fromOffset = 0;
    let found = false;
    const written: Array<{ offset: number; author: string; message: AnyMessage }> = [];
    for (const record of recorded) {
      const event = upcast(record) as SessionEvent;
      state = sessionDecider.evolve(state, event);
      if (event.type === SESSION_EVENTS.created) resource = event.data.resource;
      if (event.type === SESSION_EVENTS.turnRequested && !found) {
        // Turns are requested in log order: this one answers what came after the previous one's checkpoint.
        if (event.data.turnId === ref.turnId) [found, throughOffset] = [true, event.data.throughOffset];
        else fromOffset = event.data.throughOffset;
      }
      if (event.type === SESSION_EVENTS.messagesWritten) {
        event.data.messages.forEach((message, i) => written.push({ offset: event.data.firstOffset + i, author: event.data.author, message }));
      }
    }
    // Provisional user messages written after this turn's checkpoint wait for a later turn.
    const messages = written.filter((w) => w.offset < throughOffset || w.author === 'runtime').map((w) => activityOf(w.message));
    const pending = written.filter((w) => w.author === 'user' && w.offset >= fromOffset && w.offset < throughOffset).map((w) => activityOf(w.message));
    return { state, settings: settingsOf(resource), messages, pending };
  }

  private async loadAgent(org: string, agentName: string): Promise<RuntimeAgent> {
    const state = await this.options.commands.stateOf(agentFold, resourceStreamId(agentSpec, org, agentName));
    if (!state.resource) throw new RuntimeFault(`agent '${agentName}' not found`, false);
    const agent = state.resource as { prompt?: unknown; connections?: unknown };
    const tools = new Set<string>();
    const connections: RuntimeConnectionBinding[] = [];
    for (const binding of Array.isArray(agent.connections) ? agent.connections : []) {
      const { name, enabledTools } = binding as { name?: unknown; enabledTools?: unknown };
      const enabled = Array.isArray(enabledTools) ? enabledTools.filter((tool): tool is string => typeof tool === 'string') : [];
      for (const tool of enabled) tools.add(tool);
      if (typeof name === 'string') connections.push({ name, enabledTools: enabled });
    }
    return { name: agentName, prompt: typeof agent.prompt === 'string' ? agent.prompt : '', enabledTools: [...tools], connections };
  }
}

function activityOf(message: AnyMessage): Activity {
  const { '@type': _type, ...activity } = message;
  return activity as unknown as Activity;
}

function settingsOf(resource: Partial<SessionResource>): RuntimeSessionSettings {
  const effort = resource.compatReasoningEffort;
  return {
    dryRun: resource.dryRun === true,
    // dry_run forces incognito (the session stores both; this holds for sessions stored otherwise too).
    incognito: resource.incognito === true || resource.dryRun === true,
    automated: resource.automated === true,
    ...(resource.compatProvider ? { compatProvider: resource.compatProvider } : {}),
    ...(resource.compatModel ? { compatModel: resource.compatModel } : {}),
    ...(effort === 'low' || effort === 'medium' || effort === 'high' ? { compatReasoningEffort: effort } : {}),
    ...(resource.mockTime ? { mockTime: resource.mockTime } : {}),
  };
}

/**
 * Publishes a turn's ephemeral notifications in order, on the session's topic, as Anys of
 * `<type_host>/svc.nxagent.v1.<type>`. Publishing never fails or slows the turn: a failure is
 * logged once, and past MAX_PENDING_NOTIFICATIONS unpublished ones the rest are dropped.
 */
class TurnPublisher {
  private chain: Promise<void> = Promise.resolve();
  private pending = 0;
  private complained = false;

  constructor(
    private readonly ref: TurnRef,
    private readonly typeHost: string,
    private readonly publish: PublishNotification | undefined,
    private readonly log: ((line: string) => void) | undefined,
  ) {}

  emit(n: EphemeralNotification): void {
    const publish = this.publish;
    if (!publish) return;
    if (this.pending >= MAX_PENDING_NOTIFICATIONS) return this.complain(`more than ${MAX_PENDING_NOTIFICATIONS} notifications waiting; dropping`);
    this.pending++;
    const notification = {
      value: { '@type': `${this.typeHost}/svc.nxagent.v1.${n.type}`, ...n.value },
      ...(this.ref.after ? { [AFTER_POSITION_KEY]: this.ref.after } : {}),
    };
    this.chain = this.chain
      .then(() => publish(this.ref.org, this.ref.sessionName, notification))
      .catch((error: unknown) => this.complain(`publishing failed: ${(error as Error).message}`))
      .finally(() => void this.pending--);
  }

  drain(): Promise<void> {
    return this.chain;
  }

  private complain(reason: string): void {
    if (this.complained) return;
    this.complained = true;
    this.log?.(`${this.ref.sessionName} ${this.ref.turnId}: ephemeral notifications: ${reason}`);
  }
}
