import { EmptyResponse, EVENT_STREAM } from '@svc/contracts/shared/responses';
import { Inject, Injectable, Logger, Module, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { NOTIFICATION_SERVICE, PublishRequest, SubscribeRequest } from '@svc/contracts/notifications/notifications.contract';
import { invalid } from '@svc/domain/shared/domain-error';
import type { Settings } from '@svc/infrastructure/config/env';
import type { EventStore } from '@svc/infrastructure/event-store/event-store.port';
import { SessionNotificationStream } from '@svc/infrastructure/notifications/session-notification-stream';
import { EVENT_STORE, SETTINGS } from '@svc/infrastructure/nest/tokens';
import {
  NOTIFICATION_BUS,
  NotificationTooLargeError,
  type NotificationBody,
  type NotificationBus,
} from '@svc/infrastructure/notifications/notification-bus.port';
import { EventIdCodec } from '@svc/infrastructure/notifications/event-ids';
import { loadMasterKey } from '@svc/infrastructure/config/secrets';
import { loadNotificationSettings, type NotificationSettings } from '@svc/infrastructure/notifications/settings';
import { MethodRegistry, type MethodDefinition } from '../http/method-registry';
import { StreamBudget } from '../http/event-stream';
import { NOTIFICATION_HUB, NotificationStreams } from './notification-streams';
import { NOTIFICATION_SETTINGS, STREAM_BUDGET, SubscriberHub } from './subscriber-hub';

/** svc.notifications.v1.NotificationService: Subscribe (an event stream) and Publish (through the bus). */
@Injectable()
class NotificationsMethods implements OnModuleInit, OnModuleDestroy {
  constructor(
    private readonly registry: MethodRegistry,
    private readonly streams: NotificationStreams,
    private readonly sessions: SessionNotificationStream,
    @Inject(NOTIFICATION_BUS) private readonly bus: NotificationBus,
  ) {}

  onModuleInit(): void {
    const subscribe: MethodDefinition<SubscribeRequest> = {
      service: NOTIFICATION_SERVICE,
      method: 'Subscribe',
      request: SubscribeRequest,
      response: EVENT_STREAM,
      handle: ({ principal, request, headers }) => this.streams.open(principal, request, headers),
    };
    const publish: MethodDefinition<PublishRequest, EmptyResponse> = {
      service: NOTIFICATION_SERVICE,
      method: 'Publish',
      permission: 'NOTIFICATIONS_PUBLISH',
      request: PublishRequest,
      response: EmptyResponse,
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
    await this.sessions.close();
  }
}

/**
 * Besides Subscribe and Publish, what every event stream of the process shares (WatchModule imports
 * it): the settings, the buffer budget, and the codec of SSE ids.
 */
@Module({
  providers: [
    { provide: NOTIFICATION_SETTINGS, useFactory: () => loadNotificationSettings() },
    { provide: STREAM_BUDGET, useFactory: (s: NotificationSettings) => new StreamBudget(s.maxBufferedBytesTotal), inject: [NOTIFICATION_SETTINGS] },
    { provide: EventIdCodec, useFactory: (settings: Settings) => new EventIdCodec(loadMasterKey(settings.dataDir)), inject: [SETTINGS] },
    {
      provide: NOTIFICATION_HUB,
      useFactory: (s: NotificationSettings, budget: StreamBudget, settings: Settings) => new SubscriberHub('notification', s, budget, settings.typeHost),
      inject: [NOTIFICATION_SETTINGS, STREAM_BUDGET, SETTINGS],
    },
    {
      provide: SessionNotificationStream,
      useFactory: (events: EventStore, settings: Settings, bus: NotificationBus) =>
        new SessionNotificationStream({ events, bus, typeHost: settings.typeHost, onFault: feedFault('notifications') }),
      inject: [EVENT_STORE, SETTINGS, NOTIFICATION_BUS],
    },
    NotificationStreams,
    NotificationsMethods,
  ],
  exports: [NOTIFICATION_SETTINGS, STREAM_BUDGET, EventIdCodec],
})
export class NotificationsModule {}

/** A committed feed's recovered fault, logged: the feed resubscribes by itself. */
export function feedFault(feed: string): (reason: string, attempt: number) => void {
  const logger = new Logger(feed);
  return (reason, attempt) => logger.warn(`committed feed: ${reason}; resubscribing (attempt ${attempt})`);
}
