import { Controller, Get, Inject, Module, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { comparePositions, positionFromString } from '@svc/infrastructure/event-store/event-store.port';
import { READ_STORE } from '@svc/infrastructure/nest/tokens';
import { HEARTBEAT_KEY, type Heartbeat, projectorHealth } from '@svc/infrastructure/projection/heartbeat';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { Public } from '../auth/principal';
import { StartupModule, StartupState } from '../operator-config/startup.service';

/**
 * Ready when this api has applied the operator configuration and a projector is running and has
 * projected that configuration (so the printed API key works the moment health says so). A projector
 * that beats but has been retrying its stores (or stalled) for 5 s is `failing`: its read models are
 * going stale, so the api is not ready either.
 */
@Controller()
export class HealthController {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly startup: StartupState,
  ) {}

  @Public()
  @Get('healthz')
  async health(@Res() reply: FastifyReply): Promise<void> {
    const heartbeat = await this.reads.getMeta<Heartbeat>(HEARTBEAT_KEY);
    const projector = projectorHealth(heartbeat);
    const projectorRunning = projector === 'running';
    let configProjected = this.startup.configPosition === null;
    if (this.startup.configPosition) {
      const checkpoints = await this.reads.listCheckpoints();
      const needed = positionFromString(this.startup.configPosition);
      configProjected = ['access', 'organizations'].every((name) => {
        const cp = checkpoints.find((c) => c.name === name);
        return cp !== undefined && comparePositions(cp.position, needed) >= 0;
      });
    }
    const ready = this.startup.ready && projectorRunning && configProjected;
    void reply.status(ready ? 200 : 503).send({
      status: ready ? 'ok' : 'starting',
      api: this.startup.ready ? 'ready' : 'starting',
      projector,
      configuration: configProjected ? 'projected' : 'pending',
    });
  }
}

@Module({ imports: [StartupModule], controllers: [HealthController] })
export class HealthModule {}
