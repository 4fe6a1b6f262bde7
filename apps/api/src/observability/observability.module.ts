import { Controller, Get, Module, Res } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import type { FastifyReply } from 'fastify';
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

@Module({
  controllers: [MetricsController],
  providers: [{ provide: APP_INTERCEPTOR, useClass: RateLimitInterceptor }],
})
export class ObservabilityModule {}
