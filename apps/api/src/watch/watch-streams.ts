import { Inject, Injectable } from '@nestjs/common';
import { positionToString } from '@svc/infrastructure/event-store/event-store.port';
import { watchFilter, type WatchedEvent } from '@svc/infrastructure/history/event-view';
import { CommittedFeed, followCommitted, type CommittedBatch } from '@svc/infrastructure/notifications/committed-feed';
import type { NotificationSettings } from '@svc/infrastructure/notifications/settings';
import type { Principal } from '../auth/principal';
import { EventStream } from '../http/event-stream';
import { lastEventId } from '../notifications/notification-streams';
import { NOTIFICATION_SETTINGS, SubscriberHub } from '../notifications/subscriber-hub';

/** The committed feed of every shown event (topic: its resource), one subscription per api process. */
export const WATCH_FEED = Symbol('WATCH_FEED');

/**
 * Event watches: the caller's organization's events as they commit, each with its log position as
 * the SSE id; with Last-Event-ID, what was missed is read from the log before going live, with
 * nothing skipped or repeated (followCommitted). The filter is applied to both.
 */
@Injectable()
export class WatchStreams {
  constructor(
    @Inject(WATCH_FEED) private readonly feed: CommittedFeed,
    private readonly hub: SubscriberHub,
    @Inject(NOTIFICATION_SETTINGS) private readonly settings: NotificationSettings,
  ) {}

  /** `resource`: only that resource's events (the per-resource form). */
  async open(
    principal: Principal,
    request: { filter?: string; resource?: string },
    headers: Readonly<Record<string, string | string[] | undefined>>,
  ): Promise<EventStream> {
    // Everything that can be refused is checked before the stream opens (JSON errors).
    const matches = watchFilter(request.filter);
    const after = lastEventId(headers['last-event-id']);
    const shown = (event: WatchedEvent): boolean => (request.resource === undefined || event.resource === request.resource) && matches(event);
    const stream = new EventStream(this.settings.maxBufferBytes);
    this.hub.admit(principal.org, stream);
    const write = (batch: CommittedBatch): void => {
      for (const n of batch.notifications) {
        const event = n.notification as unknown as WatchedEvent;
        if (shown(event)) stream.event(event, positionToString(batch.position));
      }
    };
    try {
      stream.comment('subscribed');
      const committed = await followCommitted(this.feed, { org: principal.org, topic: request.resource, after }, {
        replayed: async (batch) => {
          write(batch);
          await stream.drained();
        },
        live: write,
        caughtUp: (position) => stream.id(positionToString(position)),
        overflow: () => stream.destroy(),
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
