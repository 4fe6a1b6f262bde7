import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { EventStore } from '@svc/infrastructure/event-store/event-store.port';
import { EVENT_STORE, READ_STORE } from '@svc/infrastructure/nest/tokens';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { InvestigationStatusReactor } from './investigation-status.reactor';

/** Hosts the investigation status reactor in the projector process, beside the projections. */
@Injectable()
export class InvestigationStatusService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('investigation-status');
  private readonly reactor: InvestigationStatusReactor;

  constructor(@Inject(EVENT_STORE) events: EventStore, @Inject(READ_STORE) reads: ReadStore, bus: CommandBus) {
    this.reactor = new InvestigationStatusReactor(events, reads, bus, (line) => this.logger.log(line));
  }

  onApplicationBootstrap(): void {
    this.reactor.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.reactor.stop();
  }
}
