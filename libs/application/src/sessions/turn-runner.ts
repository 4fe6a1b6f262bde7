/**
 * Runs one requested turn of a session, idempotently: the turn id names the work, so running it
 * again (a retry, a restart after a crash, a second process) finds the first result instead of
 * writing a second one. Load the session's log, skip a turn already completed, mark it started, run
 * the runtime, and commit its activities and conclusion with CompleteTurn through the session
 * decider, whose request id is the turn id (docs/decisions.md, "Agent runtime"). One file: the turn
 * step, pure (what a requested turn sees of its session, whether it still needs running, the command
 * that marks it started and the one that commits its answer; tested given / when / then in
 * turn-step.spec.ts), then TurnRunner, its thin executor: it reads the session's log, calls the
 * runtime, and sends the step's commands through the command bus.
 */
import { ACTIVITY_TYPE, type AnyMessage, SESSION_EVENTS, type SessionEvent, type SessionResource, sessionStreamId } from '@svc/contracts/sessions/session.events';
import { agentSpec } from '@svc/domain/agents/agent.resource';
import { afterCommitted } from '@svc/infrastructure/notifications/session-notification-stream';
import type { Actor } from '@svc/domain/shared/decider';
import { resourceStreamId } from '@svc/domain/shared/resource';
import { resourceDecider } from '@svc/domain/shared/resource.decider';
import { type SessionCommand, sessionDecider, type SessionState } from '@svc/domain/sessions/session.decider';
import type { CommandService } from '@svc/infrastructure/commands/command-service';
import { upcast } from '@svc/infrastructure/commands/upcasters';
import type { EventStore } from '@svc/infrastructure/event-store/event-store.port';
import {
  type Activity,
  type AgentRuntime,
  type EphemeralNotification,
  type RuntimeAgent,
  type RuntimeConnectionBinding,
  RuntimeFault,
  type RuntimeSessionSettings,
  type RuntimeSkills,
  type TurnResult,
} from '@svc/infrastructure/integrations/agent-runtime/agent-runtime.port';
import type { CommandSender } from '../commands/command-sender';
import { DecideAndAppend } from '../commands/decide-and-append';

/** A session command of the turn, with the request id that makes it idempotent. */
export interface TurnCommand {
  command: SessionCommand;
  requestId: string;
}

/** What a turn sees of its session: the folded state, the runtime's settings, the messages and the pending input. */
export interface TurnView {
  state: SessionState;
  settings: RuntimeSessionSettings;
  messages: Activity[];
  pending: Activity[];
}

/** The session's log (upcast), as the turn `turnId` sees it. */
export function turnView(events: Iterable<SessionEvent>, turnId: string): TurnView {
  let state: SessionState = sessionDecider.initialState();
  let resource: Partial<SessionResource> = {};
  let throughOffset = Number.POSITIVE_INFINITY;
  let fromOffset = 0;
  let found = false;
  const written: Array<{ offset: number; author: string; message: AnyMessage }> = [];
  for (const event of events) {
    state = sessionDecider.evolve(state, event);
    if (event.type === SESSION_EVENTS.created) resource = event.data.resource;
    if (event.type === SESSION_EVENTS.turnRequested && !found) {
      // Turns are requested in log order: this one answers what came after the previous one's checkpoint.
      if (event.data.turnId === turnId) [found, throughOffset] = [true, event.data.throughOffset];
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

/**
 * Before the runtime: a turn no longer open was completed (by an earlier attempt, another process):
 * nothing to run. An open one not yet started is marked started first (StartTurn, request id
 * `<turn>-start`), so the session shows it running.
 */
export function turnStart(state: SessionState, turnId: string, actor: Actor): 'already-completed' | { start: TurnCommand | null } {
  if (!state.openTurns.includes(turnId)) return 'already-completed';
  if (state.startedTurns.includes(turnId)) return { start: null };
  return { start: { command: { type: 'StartTurn', actor, turnId }, requestId: `${turnId}-start` } };
}

/**
 * A runtime failure that retrying cannot help (a refused key, a provider not configured) is answered
 * in the session instead; null for any other failure, which the reactor retries.
 */
export function failureAnswer(error: unknown): TurnResult | null {
  if (!(error instanceof RuntimeFault) || error.retryable) return null;
  return { activities: [{ assistant: { text: { text: `The agent runtime could not answer: ${error.message}` } } }] };
}

/** After the runtime: CompleteTurn with its activities (as Anys of the type host) and conclusion; the turn id is the request id. */
export function turnAnswer(result: TurnResult, turnId: string, typeHost: string, actor: Actor): TurnCommand {
  const messages: AnyMessage[] = result.activities.map((activity) => ({ '@type': `${typeHost}/${ACTIVITY_TYPE}`, ...activity }));
  return { command: { type: 'CompleteTurn', actor, turnId, messages, conclusion: result.conclusion?.done }, requestId: turnId };
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
  /** Every write of a turn goes through the bus (DecideAndAppend on the session's stream). */
  bus: CommandSender;
  /** Reads folded state (the agent). */
  commands: Pick<CommandService, 'stateOf'>;
  runtime: AgentRuntime;
  typeHost: string;
  publish?: PublishNotification;
  log?: (line: string) => void;
  now?: () => Date;
  /** The skills a session of the organization sees (`/run/skills`); without it the runtime offers none. */
  skills?: (org: string) => Promise<RuntimeSkills>;
}

export class TurnRunner {
  constructor(private readonly options: TurnRunnerOptions) {}

  async run(ref: TurnRef, signal?: AbortSignal): Promise<TurnOutcome> {
    const { bus, runtime, typeHost } = this.options;
    const streamId = sessionStreamId(ref.org, ref.sessionName);
    const session = await this.loadSession(streamId, ref.turnId);
    const agentName = ref.sessionName.slice(0, ref.sessionName.indexOf('/sessions/'));
    const step = turnStart(session.state, ref.turnId, this.actor(ref.org, agentName));
    if (step === 'already-completed') return step;
    // Every write of the turn: DecideAndAppend on the session's stream, caused by the turn.
    const send = ({ command, requestId }: TurnCommand) =>
      bus.execute(
        new DecideAndAppend<SessionState, SessionCommand, SessionEvent>({
          decider: sessionDecider,
          streamId,
          command,
          context: { actor: command.actor, requestId, causationId: ref.turnId },
        }),
      );

    if (step.start) await send(step.start);

    let result: TurnResult;
    let outcome: TurnOutcome = 'completed';
    const publisher = new TurnPublisher(ref, typeHost, this.options.publish, this.options.log);
    try {
      const agent = await this.loadAgent(ref.org, agentName);
      const skills = this.options.skills ? await this.options.skills(ref.org) : undefined;
      result = await runtime.runTurn(
        {
          session: { name: ref.sessionName, org: ref.org, settings: session.settings },
          agent,
          messages: session.messages,
          pending: session.pending,
          turnId: ref.turnId,
          signal,
          ...(skills ? { skills } : {}),
        },
        (n) => publisher.emit(n),
      );
    } catch (error) {
      const answer = failureAnswer(error);
      if (!answer) throw error;
      // Retrying cannot help (a refused key, a provider that is not configured): say so in the session.
      result = answer;
      outcome = 'answered-failure';
    } finally {
      await publisher.drain();
    }
    const done = await send(turnAnswer(result, ref.turnId, typeHost, this.actor(ref.org, agentName)));
    return done.replayed || done.events.length === 0 ? 'already-completed' : outcome;
  }

  private actor(org: string, agentName: string): Actor {
    // The agent speaks in its session: its messages are authored by the agent itself.
    return { org, actor: agentName, subject: agentName, permissions: [], now: (this.options.now?.() ?? new Date()).toISOString() };
  }

  /** The session's state, settings and the messages the turn sees, from its own log. */
  private async loadSession(streamId: string, turnId: string) {
    const recorded = await this.options.events.readStream(streamId);
    return turnView(recorded.map((record) => upcast(record) as SessionEvent), turnId);
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
    const notification = afterCommitted({ value: { '@type': `${this.typeHost}/svc.nxagent.v1.${n.type}`, ...n.value } }, this.ref.after);
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
