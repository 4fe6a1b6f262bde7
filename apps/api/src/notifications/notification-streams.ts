import { Inject, Injectable } from '@nestjs/common';
import type { SubscribeRequest } from '@svc/contracts/notifications/notifications.contract';
import { invalid, permissionDenied } from '@svc/domain/shared/domain-error';
import type { Position } from '@svc/infrastructure/event-store/event-store.port';
import type { BusNotification } from '@svc/infrastructure/notifications/notification-bus.port';
import { EventIdCodec, ForeignEventIdError } from '@svc/infrastructure/notifications/event-ids';
import { SessionNotificationStream } from '@svc/infrastructure/notifications/session-notification-stream';
import type { Principal } from '../auth/principal';
import { FrameCache, type EventStream } from '../http/event-stream';
import { SubscriberHub } from './subscriber-hub';

/** The notification streams' SubscriberHub (watch streams have their own). */
export const NOTIFICATION_HUB = Symbol('NOTIFICATION_HUB');

/** What a subscriber receives: the notification with its topic (lowerCamelCase, like every response). */
const FRAMES = new FrameCache<BusNotification>((n) => ({ topic: n.topic, ...n.notification }));

/**
 * Subscribe: one `text/event-stream` of the committed notifications (from the log, with an opaque id
 * of the log position, replayed after Last-Event-ID) and the ephemeral ones (from the bus, no id,
 * never replayed), in the order SessionNotificationStream gives them. Everything opened for a
 * stream is released when it closes, however it closes.
 */
@Injectable()
export class NotificationStreams {
  constructor(
    private readonly sessions: SessionNotificationStream,
    @Inject(NOTIFICATION_HUB) private readonly hub: SubscriberHub,
    private readonly ids: EventIdCodec,
  ) {}

  async open(principal: Principal, request: SubscribeRequest, headers: Readonly<Record<string, string | string[] | undefined>>): Promise<EventStream> {
    const org = request.organizationId || principal.org;
    if (org !== principal.org) throw permissionDenied(`organization_id '${org}' is not the caller's organization`);
    const after = lastEventId(this.ids, org, headers['last-event-id']);
    const stream = this.hub.open(principal);
    const id = (position: Position): string => this.ids.encode(org, position);
    try {
      stream.comment('subscribed');
      const subscription = await this.sessions.subscribe({ org, topic: request.topic, after }, {
        send: (n, position) => stream.send(FRAMES.frame(n), position && id(position)),
        drained: () => stream.drained(),
        caughtUp: (position) => stream.id(id(position)),
        overflow: () => stream.endSlow('catch_up'),
        failed: () => stream.destroy(),
      });
      // Runs at once for a stream that closed while it subscribed.
      stream.onClose(() => subscription.close());
    } catch (error) {
      stream.destroy();
      throw error;
    }
    return stream;
  }
}

/**
 * The position after which a stream resumes: an id this service sent the organization, or `0` for
 * the start of the log; anything else is INVALID_ARGUMENT before the stream opens.
 */
export function lastEventId(ids: EventIdCodec, org: string, header: string | string[] | undefined): Position | undefined {
  if (header === undefined || header === '') return undefined;
  const value = (Array.isArray(header) ? header[header.length - 1] : header).trim();
  if (value === '0') return START_OF_LOG;
  try {
    return ids.decode(org, value);
  } catch (error) {
    if (!(error instanceof ForeignEventIdError)) throw error;
    throw invalid(`Last-Event-ID must be the id of an event this organization's stream sent (or '0' for the start of the log), got '${value.slice(0, 64)}'`, 'INVALID_EVENT_ID');
  }
}

/** `Last-Event-ID: 0`: everything the log holds (what the numeric ids meant by 0). */
const START_OF_LOG: Position = { commit: 0n, prepare: 0n };
