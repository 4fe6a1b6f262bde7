import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { REACTORS } from '@svc/application/areas';
import { ReactorHost } from '@svc/application/reactors/reactor-host';
import { CommandService } from '@svc/infrastructure/commands/command-service';
import type { Settings } from '@svc/infrastructure/config/env';
import type { EventStore } from '@svc/infrastructure/event-store/event-store.port';
import { EVENT_STORE, READ_STORE, SETTINGS } from '@svc/infrastructure/nest/tokens';
import { NOTIFICATION_BUS, type NotificationBus } from '@svc/infrastructure/notifications/notification-bus.port';
import { ProjectionWaiter } from '@svc/infrastructure/projection/waiter';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';

/**
 * Hosts every reactor the areas declare (REACTORS) in the projector process, beside (not inside) the
 * projections, each logging under its own name. They send their commands through the same command
 * bus and handlers as the api. The stores and the notification bus close after this service has
 * stopped (Nest shuts the global InfrastructureModule down last).
 */
@Injectable()
export class ReactorsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly host: ReactorHost;

  constructor(
    @Inject(EVENT_STORE) events: EventStore,
    @Inject(READ_STORE) reads: ReadStore,
    @Inject(SETTINGS) settings: Settings,
    @Inject(NOTIFICATION_BUS) notifications: NotificationBus,
    bus: CommandBus,
    folds: CommandService,
    waiter: ProjectionWaiter,
  ) {
    this.host = new ReactorHost(REACTORS, (reactor) => {
      const logger = new Logger(reactor.name);
      return { bus, folds, events, reads, waiter, notifications, settings, log: (line) => logger.log(line) };
    });
  }

  onApplicationBootstrap(): Promise<void> {
    return this.host.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.host.stop();
  }
}
