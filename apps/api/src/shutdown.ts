import type { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { GracefulStop } from '@svc/infrastructure/nest/graceful-stop';
import { ProjectionWaiter } from '@svc/infrastructure/projection/waiter';

/**
 * While draining, a command waits at most this long for its projection: a projector stopped at the
 * same time (separate processes, one SIGTERM to both) would otherwise hold the drain for SVC_READ_WAIT_MS.
 */
const DRAIN_READ_WAIT_MS = 1000;

/** What runs beside the api's HTTP server (the projector, as a child or in-process). */
export interface Companion {
  stop(): Promise<void>;
}

/**
 * The api's one shutdown path (SIGTERM, Ctrl-C, or a projector child that went away), in the order
 * that cuts nothing off: stop accepting and drain the requests in flight, whose commands still wait
 * for the projector, which therefore keeps running; close the api's stores; then stop the projector.
 * Exit 0 when all of that ends within the deadline, else 1 (docs/operations.md, "Stopping").
 */
export class ApiShutdown {
  private app: NestFastifyApplication | null = null;
  private projector: Companion | null = null;
  private readonly control: GracefulStop;

  constructor(logger: Logger) {
    this.control = new GracefulStop(() => this.run(), { logger }).listen();
  }

  get stopping(): boolean {
    return this.control.stopping;
  }

  /**
   * Call before `listen`. Signals may arrive while the api boots: whatever has started by then is
   * stopped. While draining, every answer closes its connection: a kept-alive connection whose request
   * ends after the server stopped listening would otherwise stay open (and the drain with it) until
   * its keep-alive timeout.
   */
  serving(app: NestFastifyApplication): void {
    this.app = app;
    app.getHttpAdapter().getInstance().addHook('onSend', async (_request, reply) => {
      if (this.stopping) void reply.header('connection', 'close');
    });
  }

  /** Unhandled rejections and uncaught exceptions are logged and stop the api this same way, with status 1. */
  catchFatal(): void {
    this.control.catchFatal();
  }

  withProjector(projector: Companion): void {
    this.projector = projector;
  }

  stop(reason: string, exitCode = 0): Promise<void> {
    return this.control.stop(reason, exitCode);
  }

  private async run(): Promise<void> {
    if (this.app) {
      this.app.get(ProjectionWaiter).hurry(DRAIN_READ_WAIT_MS);
      // Nest closes the server (waiting for requests in flight) before the stores' shutdown hooks.
      await this.app.close();
    }
    await this.projector?.stop();
  }
}
