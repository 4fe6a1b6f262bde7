import { Inject, Injectable, Logger, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createServer, type Server } from 'node:http';
import type { Settings } from '@svc/infrastructure/config/env';
import type { EventStore } from '@svc/infrastructure/event-store/event-store.port';
import { InfrastructureModule } from '@svc/infrastructure/nest/infrastructure.module';
import { EVENT_STORE, READ_STORE, SETTINGS } from '@svc/infrastructure/nest/tokens';
import { HEARTBEAT_KEY, type Heartbeat, REBUILD_REQUEST_KEY, type RebuildRequest } from '@svc/infrastructure/projection/heartbeat';
import { Projector } from '@svc/infrastructure/projection/projector';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { QuietLogger } from '@svc/infrastructure/nest/quiet-logger';
import { PROJECTIONS } from './projections';

const HEARTBEAT_MS = 1000;
// Defined beside the heartbeat so the CLI can use them without loading Nest.
export { REBUILD_REQUEST_KEY, type RebuildRequest };

/** Runs every projection with its own checkpoint, beats a heartbeat, and serves rebuild requests. */
@Injectable()
export class ProjectorService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('projector');
  private readonly projector: Projector;
  private timer: NodeJS.Timeout | null = null;
  private health: Server | null = null;
  private rebuilding = false;

  constructor(
    @Inject(EVENT_STORE) events: EventStore,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {
    this.projector = new Projector(events, reads, PROJECTIONS);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.projector.start();
    await this.beat();
    this.timer = setInterval(() => void this.tick(), HEARTBEAT_MS);
    if (this.settings.projectorHealthPort) this.serveHealth(this.settings.projectorHealthPort);
    this.logger.log(`running ${PROJECTIONS.map((p) => p.name).join(', ')}`);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.health?.close();
    await this.projector.stop();
  }

  private async tick(): Promise<void> {
    try {
      await this.beat();
      await this.serveRebuildRequest();
    } catch (error) {
      this.logger.error(`heartbeat failed: ${(error as Error).message}`);
    }
  }

  private async beat(): Promise<void> {
    const heartbeat: Heartbeat = { pid: process.pid, at: new Date().toISOString(), projections: PROJECTIONS.map((p) => p.name) };
    await this.reads.putMeta(HEARTBEAT_KEY, heartbeat);
  }

  private async serveRebuildRequest(): Promise<void> {
    if (this.rebuilding) return;
    const request = await this.reads.getMeta<RebuildRequest>(REBUILD_REQUEST_KEY);
    if (!request || request.done) return;
    this.rebuilding = true;
    try {
      const result = await this.projector.rebuild(request.projection);
      this.logger.log(`rebuilt ${request.projection} from ${result.events} events`);
      await this.reads.putMeta(REBUILD_REQUEST_KEY, { ...request, done: { at: new Date().toISOString(), events: result.events } });
    } catch (error) {
      await this.reads.putMeta(REBUILD_REQUEST_KEY, {
        ...request,
        done: { at: new Date().toISOString(), events: 0, error: (error as Error).message },
      });
    } finally {
      this.rebuilding = false;
    }
  }

  private serveHealth(port: number): void {
    this.health = createServer((req, res) => {
      const ok = req.url === '/healthz';
      res.writeHead(ok ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(ok ? { status: 'ok' } : { error: { code: 404, status: 'NOT_FOUND', message: 'no such route' } }));
    });
    this.health.listen(port, this.settings.host);
  }
}

export function projectorModule(settings: Settings) {
  @Module({ imports: [InfrastructureModule.forRoot(settings)], providers: [ProjectorService] })
  class ProjectorModule {}
  return ProjectorModule;
}

/** A NestJS application context with no business HTTP. */
export async function startProjector(settings: Settings) {
  // No Nest signal hooks: the process that hosts the projector stops it (apps/*/src/main.ts).
  const app = await NestFactory.createApplicationContext(projectorModule(settings), { logger: new QuietLogger() });
  await app.init();
  return app;
}
