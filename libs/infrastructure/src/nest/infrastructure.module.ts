import { type DynamicModule, Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { CommandService } from '../commands/command-service';
import { loadSettings, type Settings } from '../config/env';
import { createEventStore } from '../event-store';
import type { EventStore } from '../event-store/event-store.port';
import { createNotificationBus } from '../notifications';
import { NOTIFICATION_BUS, type NotificationBus } from '../notifications/notification-bus.port';
import { ProjectionWaiter } from '../projection/waiter';
import { createReadStore } from '../read-store';
import type { ReadStore } from '../read-store/read-store.port';
import { SqliteReadStore } from '../read-store/sqlite-read-store/sqlite-read-store';
import { watchCommits } from '../sqlite/commit-watch';
import { EVENT_STORE, READ_STORE, SETTINGS } from './tokens';

/** The two stores, the notification bus, and what every process builds on them; EventStoreDB/MongoDB when their URLs are set, else SQLite. */
@Global()
@Module({})
export class InfrastructureModule implements OnApplicationShutdown {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(NOTIFICATION_BUS) private readonly notifications: NotificationBus,
  ) {}

  static forRoot(settings: Settings = loadSettings()): DynamicModule {
    return {
      module: InfrastructureModule,
      providers: [
        { provide: SETTINGS, useValue: settings },
        {
          provide: EVENT_STORE,
          useFactory: () => createEventStore({ EVENTSTORE_URL: settings.eventStoreUrl, SVC_DATA_DIR: settings.dataDir }),
        },
        {
          provide: READ_STORE,
          useFactory: () => createReadStore({ MONGODB_URL: settings.mongoUrl, SVC_DATA_DIR: settings.dataDir }),
        },
        {
          provide: NOTIFICATION_BUS,
          useFactory: () => createNotificationBus({ MONGODB_URL: settings.mongoUrl, SVC_DATA_DIR: settings.dataDir }),
        },
        { provide: CommandService, useFactory: (events: EventStore) => new CommandService(events), inject: [EVENT_STORE] },
        {
          provide: ProjectionWaiter,
          // The embedded read store's commits are heard across processes (commit-watch.ts); others are polled.
          useFactory: (reads: ReadStore) =>
            new ProjectionWaiter(reads, undefined, reads instanceof SqliteReadStore ? (listener) => watchCommits(reads.file, listener) : undefined),
          inject: [READ_STORE],
        },
      ],
      exports: [SETTINGS, EVENT_STORE, READ_STORE, NOTIFICATION_BUS, CommandService, ProjectionWaiter],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.notifications.close();
    await this.events.close();
    await this.reads.close();
  }
}
