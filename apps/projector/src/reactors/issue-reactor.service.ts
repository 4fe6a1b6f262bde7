import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { EventStore } from '@svc/infrastructure/event-store/event-store.port';
import { EVENT_STORE, READ_STORE } from '@svc/infrastructure/nest/tokens';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { IssueReactor } from './issue.reactor';

/**
 * Hosts the issue reactor (issues from concluded sessions) in the projector process. One job at a
 * time: conclusions are rare and cheap, and their issues then appear in the order sessions concluded.
 */
@Injectable()
export class IssueReactorService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('issues');
  private readonly reactor: IssueReactor;

  constructor(@Inject(EVENT_STORE) events: EventStore, @Inject(READ_STORE) reads: ReadStore, bus: CommandBus) {
    this.reactor = new IssueReactor(events, reads, bus, { concurrency: 1, log: (line) => this.logger.log(line) });
  }

  onApplicationBootstrap(): void {
    this.reactor.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.reactor.stop();
  }
}
