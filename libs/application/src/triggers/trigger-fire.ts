/**
 * How an occasion fires (docs/decisions.md, "Trigger reactors"), in one file: the occasion step, pure
 * (what firing an occasion sends, and what follows from each answer; tested given / when / then in
 * trigger-fire.spec.ts), and TriggerFire, its thin executor, which reads the folds the step needs and
 * sends the step's commands through the command bus: record the fire in the trigger's occasion stream
 * (at most once per occasion, at most once per cooldown), then start the session of the trigger's
 * agent as every session starts (start-session.ts: the step's session commands, sent in order by one
 * loop). A retry, a restart or a second process finds the first session; a crash between the record
 * and the session is mended by the next attempt, which finds the fire and starts the session it
 * names. InvokeTrigger (the api) and the trigger reactors (the projector) both use it.
 */
import type { Command } from '@nestjs/cqrs';
import { type OccasionSource, type TriggerOccasionEvent, triggerOccasionStreamId } from '@svc/contracts/reactors/trigger-occasion.events';
import { agentSpec } from '@svc/domain/agents/agent.resource';
import { type TriggerOccasionCommand, triggerOccasionsDecider, type TriggerOccasionsState } from '@svc/domain/reactors/trigger-occasions.decider';
import type { Actor } from '@svc/domain/shared/decider';
import { type ResourceState, resourceStreamId } from '@svc/domain/shared/resource';
import { resourceDecider } from '@svc/domain/shared/resource.decider';
import { type OccasionSessionKeys, occasionSessionKeys, seedActivity } from '@svc/domain/triggers/invocation';
import type { CommandService } from '@svc/infrastructure/commands/command-service';
import type { CommandSender } from '../commands/command-sender';
import { DecideAndAppend } from '../commands/decide-and-append';
import { type SessionStart, sessionStartCommands } from '../sessions/start-session';

/** The trigger as a reactor sees it (its read-model document). */
export interface FiringTrigger {
  org: string;
  name: string;
  agent: string;
  displayName?: string;
}

export interface Occasion {
  key: string;
  source: OccasionSource;
  /** When it happened: the scheduled time, the due time, the row's ingestion. */
  time: string;
  /** The seed activity's text. */
  seed: string;
  cooldownMs?: number;
}

export type FireOutcome = 'fired' | 'already-fired' | 'cooldown' | 'agent-gone' | 'agent-off';

export type OccasionCommand = DecideAndAppend<TriggerOccasionsState, TriggerOccasionCommand, TriggerOccasionEvent>;

/** The trigger speaks for itself: its occasions and sessions are authored by the trigger. */
export function triggerActor(trigger: Pick<FiringTrigger, 'org' | 'name'>, now: Date): Actor {
  return { org: trigger.org, actor: trigger.name, subject: trigger.name, permissions: [], now: now.toISOString() };
}

/** The session an occasion starts, derived from it (InvokeTrigger's of the same occasion): computed once per fire. */
export function sessionKeysOf(trigger: FiringTrigger, occasion: string): OccasionSessionKeys {
  return occasionSessionKeys(trigger.org, trigger.name, trigger.agent, occasion);
}

/**
 * Step 1: record the occasion in the trigger's occasion stream, naming the session it starts. The
 * decider fires it at most once (once per cooldown for a row trigger) and records it as skipped when
 * the agent is off.
 */
export function recordOccasion(
  trigger: FiringTrigger,
  occasion: Pick<Occasion, 'key' | 'source' | 'time' | 'cooldownMs'>,
  session: string,
  agentState: string | undefined,
  actor: Actor,
): OccasionCommand {
  return new DecideAndAppend<TriggerOccasionsState, TriggerOccasionCommand, TriggerOccasionEvent>({
    decider: triggerOccasionsDecider,
    streamId: triggerOccasionStreamId(trigger.org, trigger.name),
    command: {
      type: 'FireOccasion',
      actor,
      occasion: occasion.key,
      source: occasion.source,
      session,
      occasionTime: occasion.time,
      cooldownMs: occasion.cooldownMs,
      agent: trigger.agent,
      agentState,
    },
    context: { actor, causationId: occasion.key },
  });
}

/** The agent's state as the occasion records it (an agent that is off is not started by automation). */
export function agentStateOf(agent: ResourceState): string | undefined {
  return typeof agent.resource?.state === 'string' ? agent.resource.state : undefined;
}

/** Step 2: what the occasion stream, after the record, says to do next. */
export function afterRecord(state: TriggerOccasionsState, occasion: string): 'start-session' | 'agent-off' | 'cooldown' {
  if (state.skipped.has(occasion)) return 'agent-off';
  if (!state.fired.has(occasion)) return 'cooldown';
  return 'start-session';
}

/**
 * Step 3: the session the occasion starts, with the ID, name and request id derived from the occasion
 * (`keys`: so a retry, a restart or a second process finds the first), InvokeTrigger's origin and
 * seed; null when the trigger's agent no longer exists, which no retry mends.
 */
export function occasionSession(
  trigger: FiringTrigger,
  occasion: Pick<Occasion, 'key' | 'seed'>,
  keys: OccasionSessionKeys,
  agent: ResourceState,
  typeHost: string,
  actor: Actor,
): SessionStart | null {
  if (!agent.resource || agent.deleted) return null;
  return {
    actor,
    requestId: keys.requestId,
    id: keys.id,
    name: keys.name,
    parent: trigger.agent,
    agent: agent.resource,
    // As InvokeTrigger's sessions: the origin names the trigger; the title says which occasion.
    settings: {
      title: `${trigger.displayName || trigger.name}: ${occasion.key}`.slice(0, 200),
      automated: true,
      origin: { trigger: trigger.name },
      associatedResources: [trigger.name],
    },
    typeHost,
    write: { messages: [seedActivity(typeHost, occasion.seed)], writeMode: 'WRITE_MODE_CHECKPOINT' },
  };
}

/** Step 4: the outcome, once the session exists: a new fire, or one recorded before (a retry). */
export function fireOutcome(recorded: { events: readonly unknown[] }): FireOutcome {
  return recorded.events.length > 0 ? 'fired' : 'already-fired';
}

/** A durable timer: the occasion fires at `dueTime` (once per occasion, not after it fired). */
export function scheduleOccasion(
  trigger: Pick<FiringTrigger, 'org' | 'name'>,
  timer: { occasion: string; source: OccasionSource; dueTime: string; cause: string },
  actor: Actor,
): OccasionCommand {
  return new DecideAndAppend<TriggerOccasionsState, TriggerOccasionCommand, TriggerOccasionEvent>({
    decider: triggerOccasionsDecider,
    streamId: triggerOccasionStreamId(trigger.org, trigger.name),
    command: { type: 'ScheduleFire', actor, ...timer },
    context: { actor, causationId: timer.cause },
  });
}

const agentFold = resourceDecider(agentSpec);

/**
 * Every command of firing an occasion, at once: the record (step 1), and the commands that start its
 * session (step 3: start-session.ts's, the name claim and the creation, in order), null when the
 * trigger's agent is gone; the session's ID, name and request id are derived once for both. The
 * executor sends the record, asks `afterRecord` (step 2), then sends the session's commands in one loop.
 */
export interface OccasionStep {
  record: OccasionCommand;
  session: readonly Command<unknown>[] | null;
}

/** The occasion step, on the agent as read once before the record. */
export function occasionStep(trigger: FiringTrigger, occasion: Occasion, agent: ResourceState, typeHost: string, now: Date): OccasionStep {
  const actor = triggerActor(trigger, now);
  const keys = sessionKeysOf(trigger, occasion.key);
  const start = occasionSession(trigger, occasion, keys, agent, typeHost, actor);
  return { record: recordOccasion(trigger, occasion, keys.name, agentStateOf(agent), actor), session: start && sessionStartCommands(start) };
}

export class TriggerFire {
  constructor(
    private readonly bus: CommandSender,
    /** Reads folded state (stateOf); every write goes through the bus. */
    private readonly folds: Pick<CommandService, 'stateOf'>,
    private readonly typeHost: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The occasion stream's state (what fired, what is due). */
  occasions(trigger: Pick<FiringTrigger, 'org' | 'name'>): Promise<TriggerOccasionsState> {
    return this.folds.stateOf(triggerOccasionsDecider, triggerOccasionStreamId(trigger.org, trigger.name));
  }

  /**
   * Fires one occasion: records it (unless fired or in cooldown), then makes sure its session exists.
   * An agent that is off starts nothing: the occasion is recorded as skipped instead. The agent is
   * read once: the record and the session are decided on the same picture of it.
   */
  async fire(trigger: FiringTrigger, occasion: Occasion): Promise<FireOutcome> {
    const step = occasionStep(trigger, occasion, await this.agentOf(trigger), this.typeHost, this.now());
    const recorded = await this.bus.execute(step.record);
    const next = afterRecord(recorded.state, occasion.key);
    if (next !== 'start-session') return next;
    if (!(await this.sendAll(step.session))) return 'agent-gone';
    return fireOutcome(recorded);
  }

  /**
   * Records that an occasion came while the trigger's agent was off (a chat message, which starts its
   * session through InvokeTrigger's path rather than `fire`): skipped for good.
   */
  async skip(trigger: FiringTrigger, occasion: Pick<Occasion, 'key' | 'source' | 'time'>): Promise<void> {
    await this.bus.execute(recordOccasion(trigger, occasion, sessionKeysOf(trigger, occasion.key).name, 'AGENT_STATE_OFF', triggerActor(trigger, this.now())));
  }

  /** Records a durable timer: the occasion fires at `dueTime` (once per occasion, not after it fired). */
  async schedule(trigger: Pick<FiringTrigger, 'org' | 'name'>, timer: Parameters<typeof scheduleOccasion>[1]): Promise<void> {
    await this.bus.execute(scheduleOccasion(trigger, timer, triggerActor(trigger, this.now())));
  }

  /**
   * Starts (or finds) the session of an occasion recorded before (a fire recorded just before a
   * crash); false when the trigger's agent no longer exists, which no retry mends (the fire stays
   * recorded, and the log line says why no session followed).
   */
  async startSession(trigger: FiringTrigger, occasion: Pick<Occasion, 'key' | 'seed'>): Promise<boolean> {
    const keys = sessionKeysOf(trigger, occasion.key);
    const start = occasionSession(trigger, occasion, keys, await this.agentOf(trigger), this.typeHost, triggerActor(trigger, this.now()));
    return this.sendAll(start && sessionStartCommands(start));
  }

  /** The executor's one loop: the step's commands in order, each answered before the next; false for none. */
  private async sendAll(commands: readonly Command<unknown>[] | null): Promise<boolean> {
    if (!commands) return false;
    for (const command of commands) await this.bus.execute(command);
    return true;
  }

  private agentOf(trigger: Pick<FiringTrigger, 'org' | 'agent'>) {
    return this.folds.stateOf(agentFold, resourceStreamId(agentSpec, trigger.org, trigger.agent));
  }
}
