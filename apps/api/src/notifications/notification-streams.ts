import { Inject, Injectable } from '@nestjs/common';
import type { SubscribeRequest } from '@svc/contracts/notifications/notifications.contract';
import { invalid, permissionDenied } from '@svc/domain/shared/domain-error';
import { positionFromString, positionToString, type Position } from '@svc/infrastructure/event-store/event-store.port';
import { CausalGate } from '@svc/infrastructure/notifications/causal-gate';
import { CommittedFeed, followCommitted, type CommittedBatch } from '@svc/infrastructure/notifications/committed-feed';
import { NOTIFICATION_BUS, type BusNotification, type NotificationBus } from '@svc/infrastructure/notifications/notification-bus.port';
import type { NotificationSettings } from '@svc/infrastructure/notifications/settings';
import type { Principal } from '../auth/principal';
import { EventStream } from '../http/event-stream';
import { NOTIFICATION_SETTINGS, SubscriberHub } from './subscriber-hub';

/** A log position as an SSE id: `<commit>` or `<commit>/<prepare>` (what positionToString writes). */
const EVENT_ID = /^\d{1,20}(\/\d{1,20})?$/;

/** What a subscriber receives: the notification with its topic (lowerCamelCase, like every response). */
function wire(n: BusNotification): Record<string, unknown> {
  return { topic: n.topic, ...n.notification };
}

/**
 * Subscribe: one `text/event-stream` merging the committed notifications (from the log, with the
 * log position as event id, replayed after Last-Event-ID) and the ephemeral ones (from the bus, no
 * id, never replayed). Everything opened for a stream is released when it closes, however it closes.
 */
@Injectable()
export class NotificationStreams {
  constructor(
    @Inject(NOTIFICATION_BUS) private readonly bus: NotificationBus,
    private readonly feed: CommittedFeed,
    private readonly hub: SubscriberHub,
    @Inject(NOTIFICATION_SETTINGS) private readonly settings: NotificationSettings,
  ) {}

  async open(principal: Principal, request: SubscribeRequest, headers: Readonly<Record<string, string | string[] | undefined>>): Promise<EventStream> {
    const org = request.organizationId || principal.org;
    if (org !== principal.org) throw permissionDenied(`organization_id '${org}' is not the caller's organization`);
    const after = lastEventId(headers['last-event-id']);
    const stream = new EventStream(this.settings.maxBufferBytes);
    this.hub.admit(org, stream);
    const releases: (() => void)[] = [];
    const release = (): void => {
      for (const r of releases.splice(0)) r();
    };
    stream.onClose(release);
    const hold = (r: () => void): void => {
      releases.push(r);
      if (stream.closed) release();
    };
    try {
      stream.comment('subscribed');
      // A turn's output waits for the committed message that asked for it (CausalGate).
      const gate = new CausalGate(this.feed, (n) => stream.event(wire(n)));
      hold(() => gate.close());
      const subscription = await this.bus.subscribe(org, { topic: request.topic, onNotification: (n) => gate.push(n) });
      hold(() => subscription.close());
      const committed = await followCommitted(this.feed, { org, topic: request.topic, after }, {
        replayed: async (batch) => {
          writeBatch(stream, batch);
          await stream.drained();
        },
        live: (batch) => writeBatch(stream, batch),
        caughtUp: (position) => stream.id(positionToString(position)),
        overflow: () => stream.destroy(),
      });
      hold(() => committed.close());
      committed.caughtUp.catch(() => stream.destroy());
    } catch (error) {
      stream.destroy();
      release();
      throw error;
    }
    return stream;
  }
}

/**
 * The notifications of one event; only the last carries the id, so a client cut off in the middle
 * resumes before the event and receives all of it again (ActivityNotification's sessionOffset dedupes).
 */
function writeBatch(stream: EventStream, batch: CommittedBatch): void {
  const last = batch.notifications.length - 1;
  batch.notifications.forEach((n, i) => stream.event(wire(n), i === last ? positionToString(batch.position) : undefined));
}

export function lastEventId(header: string | string[] | undefined): Position | undefined {
  if (header === undefined || header === '') return undefined;
  const value = Array.isArray(header) ? header[header.length - 1] : header;
  if (!EVENT_ID.test(value.trim())) throw invalid(`Last-Event-ID must be an event id this stream sent (a log position such as '42/42'), got '${value.slice(0, 64)}'`);
  return positionFromString(value.trim());
}
