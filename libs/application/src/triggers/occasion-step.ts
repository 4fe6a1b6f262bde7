/**
 * The occasion → commands step of the trigger reactors, pure (docs/decisions.md, "Trigger
 * reactors"): what firing an occasion sends, and what follows from each answer. TriggerFire
 * (trigger-fire.ts) is the thin executor that reads the folds and sends these through the bus.
 * Tested given / when / then in occasion-step.spec.ts.
 */
import { type OccasionSource, type TriggerOccasionEvent, triggerOccasionStreamId } from '@svc/contracts/reactors/trigger-occasion.events';
import { occasionRequestId, type TriggerOccasionCommand, triggerOccasionsDecider, type TriggerOccasionsState } from '@svc/domain/reactors/trigger-occasions.decider';
import type { Actor } from '@svc/domain/shared/decider';
import type { ResourceState } from '@svc/domain/shared/resource';
import { sessionNameOf } from '@svc/domain/sessions/session.decider';
import { occasionSessionId, seedActivity } from '@svc/domain/triggers/invocation';
import { DecideAndAppend } from '../commands/decide-and-append';
import type { SessionStart } from '../sessions/start-session';

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

type OccasionCommand = DecideAndAppend<TriggerOccasionsState, TriggerOccasionCommand, TriggerOccasionEvent>;

/** The trigger speaks for itself: its occasions and sessions are authored by the trigger. */
export function triggerActor(trigger: Pick<FiringTrigger, 'org' | 'name'>, now: Date): Actor {
  return { org: trigger.org, actor: trigger.name, subject: trigger.name, permissions: [], now: now.toISOString() };
}

/** The name of the session an occasion starts (InvokeTrigger's ID of the same occasion). */
export function occasionSessionName(trigger: FiringTrigger, occasion: string): string {
  return sessionNameOf(trigger.agent, occasionSessionId(trigger.org, trigger.name, occasion));
}

/**
 * Step 1: record the occasion in the trigger's occasion stream. The decider fires it at most once
 * (once per cooldown for a row trigger) and records it as skipped when the agent is off.
 */
export function recordOccasion(trigger: FiringTrigger, occasion: Pick<Occasion, 'key' | 'source' | 'time' | 'cooldownMs'>, agentState: string | undefined, actor: Actor): OccasionCommand {
  return new DecideAndAppend<TriggerOccasionsState, TriggerOccasionCommand, TriggerOccasionEvent>({
    decider: triggerOccasionsDecider,
    streamId: triggerOccasionStreamId(trigger.org, trigger.name),
    command: {
      type: 'FireOccasion',
      actor,
      occasion: occasion.key,
      source: occasion.source,
      session: occasionSessionName(trigger, occasion.key),
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
 * Step 3: the session the occasion starts, with an ID and a request id derived from the occasion
 * (so a retry, a restart or a second process finds the first), InvokeTrigger's origin and seed; null
 * when the trigger's agent no longer exists, which no retry mends.
 */
export function occasionSession(trigger: FiringTrigger, occasion: Pick<Occasion, 'key' | 'seed'>, agent: ResourceState, typeHost: string, actor: Actor): SessionStart | null {
  if (!agent.resource || agent.deleted) return null;
  return {
    actor,
    requestId: occasionRequestId(trigger.name, occasion.key),
    id: occasionSessionId(trigger.org, trigger.name, occasion.key),
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
