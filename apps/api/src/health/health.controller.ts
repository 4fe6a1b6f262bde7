import { Controller, Get, Inject, Module, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { comparePositions, type EventStore, positionFromString } from '@svc/infrastructure/event-store/event-store.port';
import { EVENT_STORE, READ_STORE } from '@svc/infrastructure/nest/tokens';
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
    @Inject(EVENT_STORE) private readonly events: EventStore,
    private readonly startup: StartupState,
  ) {}

  /** The process is alive and its event loop turns: nothing else is checked (a restart cures nothing more). */
  @Public()
  @Get('livez')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /**
   * Whether this api can serve: both stores answer and the operator configuration is applied. A
   * projector that is down or behind only makes reads stale, so it reports `degraded` with 200: an
   * api instance must not leave the load balancer because of the projector (docs/operations.md).
   */
  @Public()
  @Get('readyz')
  async ready(@Res() reply: FastifyReply): Promise<void> {
    const [eventStore, readStore] = await Promise.all([
      reachable(() => this.events.headPosition()),
      reachable(() => this.reads.getMeta<Heartbeat>(HEARTBEAT_KEY)),
    ]);
    const heartbeat = readStore.ok ? (readStore.value as Heartbeat | null) : null;
    const projector = readStore.ok ? projectorHealth(heartbeat) : 'unknown';
    const ready = eventStore.ok && readStore.ok && this.startup.ready;
    const status = !ready ? 'unavailable' : projector === 'running' ? 'ok' : 'degraded';
    void reply.status(ready ? 200 : 503).send({
      status,
      eventStore: eventStore.ok ? 'reachable' : 'unreachable',
      readStore: readStore.ok ? 'reachable' : 'unreachable',
      configuration: this.startup.ready ? 'applied' : 'pending',
      projector,
    });
  }

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
    // `starting` only while the api and a running projector are still on their way to ready; a projector
    // that is down or failing is `unavailable`, whenever that happens (the `projector` field says which).
    const status = ready ? 'ok' : projectorRunning ? 'starting' : 'unavailable';
    void reply.status(ready ? 200 : 503).send({
      status,
      api: this.startup.ready ? 'ready' : 'starting',
      projector,
      configuration: configProjected ? 'projected' : 'pending',
    });
  }
}

/** Bounds a store check: a hung store is unreachable for readiness, not a hung probe. */
const PROBE_TIMEOUT_MS = 2000;

async function reachable(check: () => Promise<unknown>): Promise<{ ok: boolean; value?: unknown }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), PROBE_TIMEOUT_MS)));
  try {
    return { ok: true, value: await Promise.race([check(), timeout]) };
  } catch {
    return { ok: false };
  } finally {
    clearTimeout(timer);
  }
}

@Module({ imports: [StartupModule], controllers: [HealthController] })
export class HealthModule {}
