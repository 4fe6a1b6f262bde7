import { Inject, Injectable } from '@nestjs/common';
import { positionFromString } from '@svc/infrastructure/event-store/event-store.port';
import { watchFilter, type WatchedEvent } from '@svc/application/history/event-view';
import { CommittedFeed, followCommitted, type CommittedBatch } from '@svc/infrastructure/notifications/committed-feed';
import { EventIdCodec } from '@svc/infrastructure/notifications/event-ids';
import type { BusNotification } from '@svc/infrastructure/notifications/notification-bus.port';
import type { Principal } from '../auth/principal';
import { FrameCache, type EventStream } from '../http/event-stream';
import { lastEventId } from '../notifications/notification-streams';
import { SubscriberHub } from '../notifications/subscriber-hub';

/** The committed feed of every shown event (topic: its resource), one subscription per api process. */
export const WATCH_FEED = Symbol('WATCH_FEED');
/** The watch streams' SubscriberHub. */
export const WATCH_HUB = Symbol('WATCH_HUB');

/**
 * Event watches: the caller's organization's events as they commit, each with an opaque id of its
 * log position as the SSE id and as its `position`; with Last-Event-ID, what was missed is read from
 * the log before going live, with nothing skipped or repeated (followCommitted). The filter is
 * applied to both.
 */
@Injectable()
export class WatchStreams {
  /** An event's frame, built once for every stream that shows it. */
  private readonly frames: FrameCache<BusNotification>;

  constructor(
    @Inject(WATCH_FEED) private readonly feed: CommittedFeed,
    @Inject(WATCH_HUB) private readonly hub: SubscriberHub,
    private readonly ids: EventIdCodec,
  ) {
    this.frames = new FrameCache((n) => {
      const event = n.notification as unknown as WatchedEvent;
      return { ...event, position: this.ids.encode(n.org, positionFromString(event.position)) };
    });
  }

  /** `resource`: only that resource's events (the per-resource form). */
  async open(
    principal: Principal,
    request: { filter?: string; resource?: string },
    headers: Readonly<Record<string, string | string[] | undefined>>,
  ): Promise<EventStream> {
    // Everything that can be refused is checked before the stream opens (JSON errors).
    const org = principal.org;
    const matches = watchFilter(request.filter);
    const after = lastEventId(this.ids, org, headers['last-event-id']);
    const shown = (event: WatchedEvent): boolean => (request.resource === undefined || event.resource === request.resource) && matches(event);
    const stream = this.hub.open(principal);
    const write = (batch: CommittedBatch): void => {
      for (const n of batch.notifications) {
        if (shown(n.notification as unknown as WatchedEvent)) stream.send(this.frames.frame(n), this.ids.encode(org, batch.position));
      }
    };
    try {
      stream.comment('subscribed');
      const committed = await followCommitted(this.feed, { org, topic: request.resource, after }, {
        replayed: async (batch) => {
          write(batch);
          await stream.drained();
        },
        live: write,
        caughtUp: (position) => stream.id(this.ids.encode(org, position)),
        overflow: () => stream.endSlow('catch_up'),
      });
      stream.onClose(() => committed.close());
      committed.caughtUp.catch(() => stream.destroy());
    } catch (error) {
      stream.destroy();
      throw error;
    }
    return stream;
  }
}
