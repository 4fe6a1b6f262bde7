/**
 * A verified inbound webhook delivery (PagerDuty v3, an incident manager), recorded once: its stream
 * is named by the platform's event id, so a platform retry finds the first record instead of making
 * a second. Only the event's identifying fields are kept, never the payload (it may carry personal
 * data or secrets the platform echoes).
 */
import type { Actor, Decider } from '../shared/decider';
import { invalid } from '../shared/domain-error';

export type WebhookDelivery = {
  /** `connections/{id}` the token belongs to. */
  connection: string;
  kind: string;
  eventId: string;
  eventType: string;
  resourceType: string;
  occurredAt: string;
};

export interface WebhookDeliveryState {
  delivery: WebhookDelivery | null;
}

export type WebhookDeliveryEvent = { type: 'WebhookDeliveryReceived'; data: WebhookDelivery & { receiveTime: string } };
export type WebhookDeliveryCommand = { type: 'RecordWebhookDelivery'; actor: Actor; delivery: WebhookDelivery };

const FIELD = /^[\x20-\x7e]{0,256}$/;

export const webhookDeliveryDecider: Decider<WebhookDeliveryState, WebhookDeliveryCommand, WebhookDeliveryEvent> = {
  initialState: () => ({ delivery: null }),
  evolve: (_state, event) => ({ delivery: event.data }),
  decide(command, state) {
    const { delivery } = command;
    for (const [field, value] of Object.entries(delivery)) {
      if (typeof value !== 'string' || !FIELD.test(value)) throw invalid(`the delivery's ${field} must be at most 256 printable characters`);
    }
    if (delivery.eventId === '') throw invalid('the delivery names no event id');
    // A retry of a recorded delivery: nothing new.
    if (state.delivery !== null) return [];
    return [{ type: 'WebhookDeliveryReceived', data: { ...delivery, receiveTime: command.actor.now } }];
  },
};
