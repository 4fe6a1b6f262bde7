/**
 * A verified tracker delivery, recorded once per connection (HandleTrackerEvent): its stream is named
 * after the connection and the delivery, so a delivery the tracker retries, or one captured and
 * replayed (GitHub signs no timestamp), appends nothing the second time.
 */
import { TRACKER_DELIVERY_RECORDED, type TrackerDeliveryRecordedEvent } from '@svc/contracts/connections/integration-ports.contract';
import type { Actor, Decider } from '../shared/decider';
import { invalid } from '../shared/domain-error';

/** A delivery key as it appears in a stream name: the tracker's GUID, or `sha256-<hex>`. */
export const DELIVERY_KEY = /^[A-Za-z0-9-]{1,100}$/;

export interface RecordTrackerDelivery {
  type: 'RecordTrackerDelivery';
  actor: Actor;
  delivery: Omit<TrackerDeliveryRecordedEvent['data'], 'receiveTime'>;
}

export const trackerDeliveryDecider: Decider<{ recorded: boolean }, RecordTrackerDelivery, TrackerDeliveryRecordedEvent> = {
  initialState: () => ({ recorded: false }),
  evolve: () => ({ recorded: true }),
  decide(command, state) {
    if (!DELIVERY_KEY.test(command.delivery.delivery)) throw invalid('a tracker delivery key is letters, digits and dashes, at most 100');
    if (state.recorded) return [];
    return [{ type: TRACKER_DELIVERY_RECORDED, data: { ...command.delivery, receiveTime: command.actor.now } }];
  },
};
