/**
 * What the trigger reactors record (docs/decisions.md, "Trigger reactors"): one stream per trigger,
 * `triggerfire-<org>:triggers/{id}`, beside the trigger's own stream (which stays the kit's). It holds
 * the occasions that fired (a cron time, a deployment after its delay, an ingested row) and the due
 * times of post-deploy fires, so what fired, what is due and the cooldown all come from events.
 */
export const TRIGGER_OCCASION_EVENTS = {
  fired: 'TriggerOccasionFired',
  scheduled: 'TriggerFireScheduled',
  skipped: 'TriggerOccasionSkipped',
} as const;

export type OccasionSource = 'cron' | 'post_deploy' | 'row' | 'chat';

export interface TriggerOccasionFiredEvent {
  type: typeof TRIGGER_OCCASION_EVENTS.fired;
  data: {
    occasion: string;
    source: OccasionSource;
    /** The session the occasion starts (derived from the trigger and the occasion). */
    session: string;
    /** When the occasion happened (the scheduled time, the due time, the row's ingestion); cooldowns count from it. */
    occasionTime: string;
    fireTime: string;
  };
}

export interface TriggerFireScheduledEvent {
  type: typeof TRIGGER_OCCASION_EVENTS.scheduled;
  data: {
    occasion: string;
    source: OccasionSource;
    /** The durable timer: the reactor fires the occasion at this time, whatever restarts happen between. */
    dueTime: string;
    /** The resource that caused it (`deployments/{id}`). */
    cause: string;
    scheduleTime: string;
  };
}

/** An occasion that started nothing because the trigger's agent was off (docs/decisions.md, "Agents that are off"). */
export interface TriggerOccasionSkippedEvent {
  type: typeof TRIGGER_OCCASION_EVENTS.skipped;
  data: {
    occasion: string;
    source: OccasionSource;
    reason: 'AGENT_STATE_OFF';
    /** The agent that was off. */
    agent: string;
    occasionTime: string;
    skipTime: string;
  };
}

export type TriggerOccasionEvent = TriggerOccasionFiredEvent | TriggerFireScheduledEvent | TriggerOccasionSkippedEvent;

export const TRIGGER_OCCASION_CATEGORY = 'triggerfire';

export function triggerOccasionStreamId(org: string, triggerName: string): string {
  return `${TRIGGER_OCCASION_CATEGORY}-${org}:${triggerName}`;
}

/** The org and trigger name of an occasion stream, or null for another stream. */
export function parseTriggerOccasionStreamId(streamId: string): { org: string; trigger: string } | null {
  if (!streamId.startsWith(`${TRIGGER_OCCASION_CATEGORY}-`)) return null;
  const colon = streamId.indexOf(':');
  if (colon < 0) return null;
  return { org: streamId.slice(TRIGGER_OCCASION_CATEGORY.length + 1, colon), trigger: streamId.slice(colon + 1) };
}
