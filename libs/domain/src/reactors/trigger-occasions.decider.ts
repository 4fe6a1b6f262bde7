/**
 * The occasions of one trigger (docs/decisions.md, "Trigger reactors"): an occasion fires at most
 * once, a row trigger fires at most once per cooldown, and a post-deploy fire is scheduled at most
 * once per deployment. The reactors record the fire first and start the session after, with an ID
 * derived from the occasion, so a crash between the two is mended by starting it again (it is found).
 */
import {
  type OccasionSource,
  TRIGGER_OCCASION_EVENTS as E,
  type TriggerOccasionEvent,
} from '@svc/contracts/reactors/trigger-occasion.events';
import type { Actor, Decider } from '../shared/decider';

const AGENT_OFF = 'AGENT_STATE_OFF';

export interface TriggerOccasionsState {
  fired: Set<string>;
  /** Occasions that came while the agent was off: handled for good, they start nothing later. */
  skipped: Set<string>;
  scheduled: Map<string, string>;
  /** The latest fire by occasion time (cooldowns and the cron schedule count from it). */
  last: { occasion: string; occasionTime: string } | null;
}

export type TriggerOccasionCommand =
  | {
      type: 'FireOccasion';
      actor: Actor;
      occasion: string;
      source: OccasionSource;
      session: string;
      occasionTime: string;
      /** Row triggers: no fire within this many milliseconds of the previous one's occasion time. */
      cooldownMs?: number;
      /** The trigger's agent and its state now: an agent that is off is not started by automation. */
      agent?: string;
      agentState?: string;
    }
  | { type: 'ScheduleFire'; actor: Actor; occasion: string; source: OccasionSource; dueTime: string; cause: string };

/** Whether a fire at `occasionTime` is held back by the cooldown after the last fire. */
export function inCooldown(state: TriggerOccasionsState, occasionTime: string, cooldownMs: number | undefined): boolean {
  if (!cooldownMs || !state.last) return false;
  return Date.parse(occasionTime) - Date.parse(state.last.occasionTime) < cooldownMs;
}

export const triggerOccasionsDecider: Decider<TriggerOccasionsState, TriggerOccasionCommand, TriggerOccasionEvent> = {
  initialState: () => ({ fired: new Set(), skipped: new Set(), scheduled: new Map(), last: null }),
  // The sets grow in place: a fold owns its state, and copying them per event would make folding a
  // long-lived trigger's stream quadratic.
  evolve(state, event) {
    if (event.type === E.scheduled) {
      state.scheduled.set(event.data.occasion, event.data.dueTime);
      return state;
    }
    if (event.type === E.skipped) {
      state.skipped.add(event.data.occasion);
      return state;
    }
    state.fired.add(event.data.occasion);
    const later = !state.last || event.data.occasionTime >= state.last.occasionTime;
    return later ? { ...state, last: { occasion: event.data.occasion, occasionTime: event.data.occasionTime } } : state;
  },
  decide(command, state) {
    if (command.type === 'ScheduleFire') {
      if (state.scheduled.has(command.occasion) || state.fired.has(command.occasion)) return [];
      const { occasion, source, dueTime, cause } = command;
      return [{ type: E.scheduled, data: { occasion, source, dueTime, cause, scheduleTime: command.actor.now } }];
    }
    // Fired already: nothing new (the caller still makes sure its session exists). Skipped: for good.
    if (state.fired.has(command.occasion) || state.skipped.has(command.occasion)) return [];
    // An agent that is off is not started by automation; the skip is recorded and does not start a cooldown.
    if (command.agentState === AGENT_OFF) {
      const { occasion, source, occasionTime } = command;
      return [{ type: E.skipped, data: { occasion, source, reason: AGENT_OFF, agent: command.agent ?? '', occasionTime, skipTime: command.actor.now } }];
    }
    if (inCooldown(state, command.occasionTime, command.cooldownMs)) return [];
    const { occasion, source, session, occasionTime } = command;
    return [{ type: E.fired, data: { occasion, source, session, occasionTime, fireTime: command.actor.now } }];
  },
};
