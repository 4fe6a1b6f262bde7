import { EVENT_STREAM } from '@svc/contracts/shared/responses';
import { Inject, Injectable, Module, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { EVENT_STORE, type EventStore } from '@svc/infrastructure/event-store/event-store.port';
import { watchNotifications } from '@svc/application/history/event-view';
import { CommittedFeed } from '@svc/infrastructure/notifications/committed-feed';
import type { Settings } from '@svc/infrastructure/config/env';
import { SETTINGS } from '@svc/infrastructure/nest/tokens';
import type { NotificationSettings } from '@svc/infrastructure/notifications/settings';
import { HISTORY_SERVICE } from '../history/extension-routes';
import { targetOf } from '../history/history.module';
import { WatchEventsRequest, WatchResourceRequest } from '../history/history.requests';
import { MethodRegistry, type MethodDefinition } from '../http/method-registry';
import type { StreamBudget } from '../http/event-stream';
import { feedFault, NotificationsModule } from '../notifications/notifications.module';
import { NOTIFICATION_SETTINGS, STREAM_BUDGET, SubscriberHub } from '../notifications/subscriber-hub';
import { WATCH_FEED, WATCH_HUB, WatchStreams } from './watch-streams';

/** WatchEvents (`GET /v1/events:watch`) and WatchResource (`GET /v1/{name=**}:watch`): reads, membership only. */
@Injectable()
class WatchMethods implements OnModuleInit, OnModuleDestroy {
  constructor(
    private readonly registry: MethodRegistry,
    private readonly streams: WatchStreams,
    @Inject(WATCH_FEED) private readonly feed: CommittedFeed,
  ) {}

  onModuleInit(): void {
    const events: MethodDefinition<WatchEventsRequest> = {
      service: HISTORY_SERVICE,
      method: 'WatchEvents',
      request: WatchEventsRequest,
      response: EVENT_STREAM,
      handle: ({ principal, request, headers }) => this.streams.open(principal, { filter: request.filter }, headers),
    };
    const resource: MethodDefinition<WatchResourceRequest> = {
      service: HISTORY_SERVICE,
      method: 'WatchResource',
      request: WatchResourceRequest,
      response: EVENT_STREAM,
      handle: ({ principal, request, headers }) => {
        // A name that cannot have a stream is refused as Get would refuse it; a future resource may be watched.
        targetOf(principal.org, request.name);
        return this.streams.open(principal, { filter: request.filter, resource: request.name }, headers);
      },
    };
    this.registry.register(events as MethodDefinition<object>, resource as MethodDefinition<object>);
  }

  async onModuleDestroy(): Promise<void> {
    await this.feed.close();
  }
}

@Module({
  imports: [NotificationsModule],
  providers: [
    // Watch streams have their own admission and heartbeat (same limits and code as notification streams), the process's buffer budget in common.
    {
      provide: WATCH_HUB,
      useFactory: (s: NotificationSettings, budget: StreamBudget, settings: Settings) => new SubscriberHub('watch', s, budget, settings.typeHost),
      inject: [NOTIFICATION_SETTINGS, STREAM_BUDGET, SETTINGS],
    },
    { provide: WATCH_FEED, useFactory: (events: EventStore) => new CommittedFeed(events, watchNotifications, undefined, feedFault('watch')), inject: [EVENT_STORE] },
    WatchStreams,
    WatchMethods,
  ],
})
export class WatchModule {}
