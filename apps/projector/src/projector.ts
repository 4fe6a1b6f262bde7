import { Inject, Injectable, Logger, type LoggerService, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { hostname } from 'node:os';
import type { Settings } from '@svc/infrastructure/config/env';
import { type EventStore, positionToString } from '@svc/infrastructure/event-store/event-store.port';
import { InfrastructureModule } from '@svc/infrastructure/nest/infrastructure.module';
import { ApplicationModule } from '@svc/application/application.module';
import { EVENT_STORE, READ_STORE, SETTINGS } from '@svc/infrastructure/nest/tokens';
import {
  HEARTBEAT_KEY,
  type Heartbeat,
  projectorHealth,
  REBUILD_REQUEST_KEY,
  type RebuildRequest,
} from '@svc/infrastructure/projection/heartbeat';
import { Projector } from '@svc/infrastructure/projection/projector';
import { describeError } from '@svc/infrastructure/projection/supervisor';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { metricsRegistry, metricsText } from '@svc/infrastructure/observability/metrics';
import { registerProgressMetrics } from '@svc/infrastructure/observability/progress-metrics';
import { CHECKPOINTED_REACTORS, PROJECTIONS } from '@svc/application/areas';
import { ReactorsService } from './reactors.service';

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
  private lastBeat: Heartbeat | null = null;
  private ticking = false;
  private beatError: string | null = null;

  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {
    this.projector = new Projector(events, reads, PROJECTIONS, { log: (line) => this.logger.warn(line) });
    registerProgressMetrics(metricsRegistry, {
      events,
      reads,
      projections: PROJECTIONS.map((p) => p.name),
      reactors: CHECKPOINTED_REACTORS,
      sequencePositions: !settings.eventStoreUrl,
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.projector.start();
    await this.tick();
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
    if (this.ticking) return; // a slow store: one beat at a time
    this.ticking = true;
    try {
      await this.beat();
      if (this.beatError) this.logger.log('heartbeat written again');
      this.beatError = null;
      await this.serveRebuildRequest();
    } catch (error) {
      // Once per outage, not every second.
      if (this.beatError === null) this.logger.error(`heartbeat failed: ${describeError(error)}`);
      this.beatError = describeError(error);
    } finally {
      this.ticking = false;
    }
  }

  /** Liveness and progress: the status says how far each projection got, and a stuck one is not "running". */
  private async beat(): Promise<void> {
    let head: string | null = null;
    try {
      const position = await this.events.headPosition();
      this.projector.observe(position);
      head = positionToString(position);
    } catch {
      // The subscription's own failure is what the status reports; the head is only context.
    }
    const heartbeat: Heartbeat = {
      pid: process.pid,
      host: hostname(),
      at: new Date().toISOString(),
      projections: PROJECTIONS.map((p) => p.name),
      status: this.projector.status(),
      head,
    };
    await this.reads.putMeta(HEARTBEAT_KEY, heartbeat);
    this.lastBeat = heartbeat;
  }

  private async serveRebuildRequest(): Promise<void> {
    if (this.rebuilding) return;
    const request = await this.reads.getMeta<RebuildRequest>(REBUILD_REQUEST_KEY);
    if (!request || request.done) return;
    this.rebuilding = true;
    try {
      const result = await this.projector.rebuild(request.projection);
      this.logger.log(`rebuilt ${request.projection} from ${result.events} events`);
      await this.reads.putMeta(REBUILD_REQUEST_KEY, { ...request, done: { at: new Date().toISOString(), events: result.events, progress: result.progress } });
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
      if (req.url === '/metrics') return void this.serveMetrics(res);
      if (req.url === '/livez') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 'ok' }));
        return;
      }
      if (req.url !== '/healthz') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 404, status: 'NOT_FOUND', message: 'no such route' } }));
        return;
      }
      // This process is alive; it is healthy while its last heartbeat landed and it is not failing.
      const health = projectorHealth(this.lastBeat);
      const status = this.projector.status();
      res.writeHead(health === 'running' ? 200 : 503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: health === 'running' ? 'ok' : health, state: status.state, lastError: status.lastError }));
    });
    this.health.listen(port, this.settings.host);
  }

  /** Prometheus text: every projection's and reactor's progress, read from the stores when scraped. */
  private async serveMetrics(res: ServerResponse): Promise<void> {
    try {
      const { contentType, body } = await metricsText();
      res.writeHead(200, { 'content-type': contentType });
      res.end(body);
    } catch (error) {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 503, status: 'UNAVAILABLE', message: `metrics unavailable: ${describeError(error)}` } }));
    }
  }
}

export function projectorModule(settings: Settings) {
  @Module({
    imports: [InfrastructureModule.forRoot(settings), ApplicationModule],
    providers: [ProjectorService, ReactorsService],
  })
  class ProjectorModule {}
  return ProjectorModule;
}

/** A NestJS application context with no business HTTP, logging through the hosting process's logger. */
export async function startProjector(settings: Settings, logger: LoggerService) {
  // No Nest signal hooks: the process that hosts the projector stops it (apps/*/src/main.ts).
  const app = await NestFactory.createApplicationContext(projectorModule(settings), { logger });
  await app.init();
  return app;
}
