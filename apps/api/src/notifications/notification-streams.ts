import { Inject, Injectable } from '@nestjs/common';
import type { SubscribeRequest } from '@svc/contracts/notifications/notifications.contract';
import { invalid, permissionDenied } from '@svc/domain/shared/domain-error';
import type { Position } from '@svc/infrastructure/event-store/event-store.port';
import { CausalGate } from '@svc/infrastructure/notifications/causal-gate';
import { CommittedFeed, followCommitted, type CommittedBatch } from '@svc/infrastructure/notifications/committed-feed';
import { NOTIFICATION_BUS, type BusNotification, type NotificationBus } from '@svc/infrastructure/notifications/notification-bus.port';
import { EventIdCodec, ForeignEventIdError } from '@svc/infrastructure/notifications/event-ids';
import type { Principal } from '../auth/principal';
import { FrameCache, type EventStream } from '../http/event-stream';
import { SubscriberHub } from './subscriber-hub';

/** The notification streams' SubscriberHub (watch streams have their own). */
export const NOTIFICATION_HUB = Symbol('NOTIFICATION_HUB');

/** What a subscriber receives: the notification with its topic (lowerCamelCase, like every response). */
const FRAMES = new FrameCache<BusNotification>((n) => ({ topic: n.topic, ...n.notification }));

/**
 * Subscribe: one `text/event-stream` merging the committed notifications (from the log, with an
 * opaque id of the log position, replayed after Last-Event-ID) and the ephemeral ones (from the bus,
 * no id, never replayed). Everything opened for a stream is released when it closes, however it closes.
 */
@Injectable()
export class NotificationStreams {
  constructor(
    @Inject(NOTIFICATION_BUS) private readonly bus: NotificationBus,
    private readonly feed: CommittedFeed,
    @Inject(NOTIFICATION_HUB) private readonly hub: SubscriberHub,
    private readonly ids: EventIdCodec,
  ) {}

  async open(principal: Principal, request: SubscribeRequest, headers: Readonly<Record<string, string | string[] | undefined>>): Promise<EventStream> {
    const org = request.organizationId || principal.org;
    if (org !== principal.org) throw permissionDenied(`organization_id '${org}' is not the caller's organization`);
    const after = lastEventId(this.ids, org, headers['last-event-id']);
    const stream = this.hub.open(principal);
    const releases: (() => void)[] = [];
    const release = (): void => {
      for (const r of releases.splice(0)) r();
    };
    stream.onClose(release);
    const hold = (r: () => void): void => {
      releases.push(r);
      if (stream.closed) release();
    };
    const id = (position: Position): string => this.ids.encode(org, position);
    try {
      stream.comment('subscribed');
      // A turn's output waits for the committed message that asked for it (CausalGate).
      const gate = new CausalGate(this.feed, (n) => stream.send(FRAMES.frame(n)));
      hold(() => gate.close());
      const subscription = await this.bus.subscribe(org, { topic: request.topic, onNotification: (n) => gate.push(n) });
      hold(() => subscription.close());
      const committed = await followCommitted(this.feed, { org, topic: request.topic, after }, {
        replayed: async (batch) => {
          writeBatch(stream, batch, id);
          await stream.drained();
        },
        live: (batch) => writeBatch(stream, batch, id),
        caughtUp: (position) => stream.id(id(position)),
        overflow: () => stream.endSlow('catch_up'),
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
function writeBatch(stream: EventStream, batch: CommittedBatch, id: (position: Position) => string): void {
  const last = batch.notifications.length - 1;
  batch.notifications.forEach((n, i) => stream.send(FRAMES.frame(n), i === last ? id(batch.position) : undefined));
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
