import { Inject, Injectable, Module, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { NOTIFICATION_SERVICE, PublishRequest, SubscribeRequest } from '@svc/contracts/notifications/notifications.contract';
import { invalid } from '@svc/domain/shared/domain-error';
import type { Settings } from '@svc/infrastructure/config/env';
import type { EventStore } from '@svc/infrastructure/event-store/event-store.port';
import { EVENT_STORE, SETTINGS } from '@svc/infrastructure/nest/tokens';
import { CommittedFeed } from '@svc/infrastructure/notifications/committed-feed';
import {
  NOTIFICATION_BUS,
  NotificationTooLargeError,
  type NotificationBody,
  type NotificationBus,
} from '@svc/infrastructure/notifications/notification-bus.port';
import { committedNotifications } from '@svc/infrastructure/notifications/session-notifications';
import { loadNotificationSettings } from '@svc/infrastructure/notifications/settings';
import { MethodRegistry, type MethodDefinition } from '../http/method-registry';
import { NotificationStreams } from './notification-streams';
import { NOTIFICATION_SETTINGS, SubscriberHub } from './subscriber-hub';

/** svc.notifications.v1.NotificationService: Subscribe (an event stream) and Publish (through the bus). */
@Injectable()
class NotificationsMethods implements OnModuleInit, OnModuleDestroy {
  constructor(
    private readonly registry: MethodRegistry,
    private readonly streams: NotificationStreams,
    private readonly feed: CommittedFeed,
    @Inject(NOTIFICATION_BUS) private readonly bus: NotificationBus,
  ) {}

  onModuleInit(): void {
    const subscribe: MethodDefinition<SubscribeRequest> = {
      service: NOTIFICATION_SERVICE,
      method: 'Subscribe',
      request: SubscribeRequest,
      handle: ({ principal, request, headers }) => this.streams.open(principal, request, headers),
    };
    const publish: MethodDefinition<PublishRequest> = {
      service: NOTIFICATION_SERVICE,
      method: 'Publish',
      permission: 'NOTIFICATIONS_PUBLISH',
      request: PublishRequest,
      handle: async ({ principal, request }) => {
        const { topic, value, payload } = request.notification;
        if (value !== undefined && (typeof value['@type'] !== 'string' || value['@type'] === '')) {
          throw invalid('notification.value must be an Any: an object with a non-empty @type');
        }
        if (value === undefined && payload === undefined) throw invalid('notification must carry a value or a payload');
        const body: NotificationBody = {};
        if (value !== undefined) body.value = value;
        if (payload !== undefined) body.payload = payload;
        try {
          await this.bus.publish(principal.org, topic ?? '', body);
        } catch (error) {
          if (error instanceof NotificationTooLargeError) throw invalid(`notification is too large: ${error.message}`);
          throw error;
        }
        return {};
      },
    };
    this.registry.register(subscribe as MethodDefinition<object>, publish as MethodDefinition<object>);
  }

  async onModuleDestroy(): Promise<void> {
    await this.feed.close();
  }
}

@Module({
  providers: [
    { provide: NOTIFICATION_SETTINGS, useFactory: () => loadNotificationSettings() },
    {
      provide: CommittedFeed,
      useFactory: (events: EventStore, settings: Settings, bus: NotificationBus) =>
        new CommittedFeed(events, (event) => committedNotifications(event, settings.typeHost), () => bus.sync()),
      inject: [EVENT_STORE, SETTINGS, NOTIFICATION_BUS],
    },
    SubscriberHub,
    NotificationStreams,
    NotificationsMethods,
  ],
})
export class NotificationsModule {}
