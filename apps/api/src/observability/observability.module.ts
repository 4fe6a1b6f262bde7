import { Controller, type DynamicModule, Get, Module, Res } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import type { FastifyReply } from 'fastify';
import type { Settings } from '@svc/infrastructure/config/env';
import { metricsText } from '@svc/infrastructure/observability/metrics';
import { Public } from '../auth/principal';
import { RateLimitInterceptor } from './rate-limit.interceptor';

/**
 * `GET /metrics` (Prometheus text format): unauthenticated like /healthz, bound to the same
 * address, and holding no organization, resource name or secret in any label (docs/operations.md).
 */
@Controller()
export class MetricsController {
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
