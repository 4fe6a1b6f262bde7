/**
 * Records a verified tracker delivery on one connection (HandleTrackerEvent): one `TrackerDeliveryRecorded`
 * in the stream of that connection and delivery, appended once whatever the number of attempts.
 */
import { createHash } from 'node:crypto';
import { trackerDeliveryStreamId } from '@svc/contracts/connections/integration-ports.contract';
import { DELIVERY_KEY, trackerDeliveryDecider, type RecordTrackerDelivery } from '@svc/domain/connections/tracker-delivery.decider';
import type { Actor } from '@svc/domain/shared/decider';
import type { CommandSender } from '../../commands/command-sender';
import { DecideAndAppend } from '../../commands/decide-and-append';

/** The key a delivery is recorded under: the tracker's delivery ID, or the body's digest when it sent none. */
export function deliveryKeyOf(delivery: string, rawBody: string | Buffer): string {
  return DELIVERY_KEY.test(delivery) ? delivery : `sha256-${createHash('sha256').update(rawBody).digest('hex')}`;
}

/** True when this call recorded it, false when the connection had it already. */
export async function recordTrackerDelivery(bus: CommandSender, actor: Actor, delivery: RecordTrackerDelivery['delivery']): Promise<boolean> {
  // Nothing reads deliveries back through the API: the answer comes once it is appended.
  const handled = await bus.execute(
    new DecideAndAppend({
      decider: trackerDeliveryDecider,
      streamId: trackerDeliveryStreamId(actor.org, delivery.connection, delivery.delivery),
      command: { type: 'RecordTrackerDelivery', actor, delivery },
      context: { actor },
      create: true,
    }),
  );
  return handled.events.length > 0 && !handled.replayed;
}
