import { Controller, type DynamicModule, Get, Inject, Module, Res } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import type { FastifyReply } from 'fastify';
import { CHECKPOINTED_REACTORS, PROJECTIONS } from '@svc/application/areas';
import type { Settings } from '@svc/infrastructure/config/env';
import type { EventStore } from '@svc/infrastructure/event-store/event-store.port';
import { EVENT_STORE, READ_STORE, SETTINGS } from '@svc/infrastructure/nest/tokens';
import { metricsRegistry, metricsText, registerApiMetrics } from '@svc/infrastructure/observability/metrics';
import { registerProgressMetrics } from '@svc/infrastructure/observability/progress-metrics';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { Public } from '../auth/principal';
import { RateLimitInterceptor } from './rate-limit.interceptor';

/**
 * `GET /metrics` (Prometheus text format): unauthenticated like /healthz, bound to the same
 * address, and holding no organization, resource name or secret in any label (docs/operations.md).
 */
@Controller()
export class MetricsController {
  /**
   * The api's own series, and every projection's and reactor's progress read from the stores it
   * shares with the projector: lag and parked events are on the api's /metrics in every layout
   * (`npm start`'s projector child serves no port of its own unless PROJECTOR_PORT is set).
   */
  constructor(@Inject(EVENT_STORE) events: EventStore, @Inject(READ_STORE) reads: ReadStore, @Inject(SETTINGS) settings: Settings) {
    registerApiMetrics();
    registerProgressMetrics(metricsRegistry, { events, reads, projections: PROJECTIONS.map((p) => p.name), reactors: CHECKPOINTED_REACTORS, sequencePositions: !settings.eventStoreUrl });
  }

  @Public()
  @Get('metrics')
  async metrics(@Res() reply: FastifyReply): Promise<void> {
    const { contentType, body } = await metricsText();
    void reply.header('content-type', contentType).send(body);
  }
}

@Module({})
export class ObservabilityModule {
  /**
   * The rate-limit interceptor only when a limit is set: any global interceptor makes Nest bind an
   * AsyncResource per request, measured at about 7% of a GetNote's CPU (docs/performance.md).
   */
  static forRoot(settings: Settings): DynamicModule {
    const limited = settings.rateLimit.perSecond > 0;
    return {
      module: ObservabilityModule,
      controllers: [MetricsController],
      providers: limited ? [{ provide: APP_INTERCEPTOR, useClass: RateLimitInterceptor }] : [],
    };
  }
}
