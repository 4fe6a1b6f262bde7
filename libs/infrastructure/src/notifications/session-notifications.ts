import { ACTIVITY_TYPE, SESSION_EVENTS, type SessionMessagesWrittenData } from '@svc/contracts/sessions/session.events';
import type { RecordedEvent } from '../event-store/event-store.port';
import type { BusNotification } from './notification-bus.port';

export const ACTIVITY_NOTIFICATION_TYPE = 'svc.nxagent.v1.ActivityNotification';

/**
 * The committed notifications an event stands for (spec part 1, "Notification stream payloads"):
 * each message of a SessionMessagesWritten, on the session's topic, as an ActivityNotification (its
 * 0-based sessionOffset and the activity as an inner Any) followed by the bare Activity. Every other
 * event stands for none. Type URLs use the configured type host; the activity is the Any as accepted.
 */
export function committedNotifications(event: RecordedEvent, typeHost: string): BusNotification[] {
  if (event.type !== SESSION_EVENTS.messagesWritten || !event.streamId.startsWith('session-')) return [];
  const topic = event.streamId.slice(event.streamId.indexOf(':') + 1);
  const data = event.data as unknown as SessionMessagesWrittenData;
  const org = event.metadata.org;
  return data.messages.flatMap((activity, i) => [
    {
      org,
      topic,
      notification: { value: { '@type': `${typeHost}/${ACTIVITY_NOTIFICATION_TYPE}`, sessionOffset: data.firstOffset + i, activity } },
    },
    { org, topic, notification: { value: { ...activity, '@type': activity['@type'] || `${typeHost}/${ACTIVITY_TYPE}` } } },
  ]);
}
