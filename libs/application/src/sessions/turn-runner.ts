/**
 * Runs one requested turn of a session, idempotently: the turn id names the work, so running it
 * again (a retry, a restart after a crash, a second process) finds the first result instead of
 * writing a second one. Load the session's log, skip a turn already completed, mark it started, run
 * the runtime, and commit its activities and conclusion with CompleteTurn through the session
 * decider, whose request id is the turn id (docs/decisions.md, "Agent runtime"). What to send is the
 * pure turn step's (turn-step.ts); this is its executor, sending through the command bus.
 */
import { type SessionEvent, sessionStreamId } from '@svc/contracts/sessions/session.events';
import { agentSpec } from '@svc/domain/agents/agent.resource';
import { afterCommitted } from '@svc/infrastructure/notifications/session-notification-stream';
import type { Actor } from '@svc/domain/shared/decider';
import { resourceStreamId } from '@svc/domain/shared/resource';
import { resourceDecider } from '@svc/domain/shared/resource.decider';
import type { CommandService } from '@svc/infrastructure/commands/command-service';
import { upcast } from '@svc/infrastructure/commands/upcasters';
import type { EventStore } from '@svc/infrastructure/event-store/event-store.port';
import {
  type AgentRuntime,
  type EphemeralNotification,
  type RuntimeAgent,
  type RuntimeConnectionBinding,
  RuntimeFault,
  type RuntimeSkills,
  type TurnResult,
} from '@svc/infrastructure/integrations/agent-runtime/agent-runtime.port';
import type { CommandSender } from '../commands/command-sender';
import { sessionCommand } from './start-session';
import { failureAnswer, type TurnCommand, turnAnswer, turnStart, turnView } from './turn-step';

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
    const session = await this.loadSession(ref);
    const agentName = ref.sessionName.slice(0, ref.sessionName.indexOf('/sessions/'));
    const step = turnStart(session.state, ref.turnId, this.actor(ref.org, agentName));
    if (step === 'already-completed') return step;
    const send = ({ command, requestId }: TurnCommand) => bus.execute(sessionCommand(ref.sessionName, requestId, command, { causationId: ref.turnId }));

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
  private async loadSession(ref: TurnRef) {
    const recorded = await this.options.events.readStream(sessionStreamId(ref.org, ref.sessionName));
    return turnView(recorded.map((record) => upcast(record) as SessionEvent), ref.turnId);
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
