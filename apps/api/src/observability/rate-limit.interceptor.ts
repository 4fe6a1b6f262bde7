import { type CallHandler, type ExecutionContext, Inject, Injectable, type NestInterceptor } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Observable } from 'rxjs';
import type { Settings } from '@svc/infrastructure/config/env';
import { rateLimited } from '@svc/infrastructure/observability/metrics';
import { SETTINGS } from '@svc/infrastructure/nest/tokens';
import { rateLimitExceeded } from '../http/errors';
import { TokenBuckets } from './rate-limit';

/**
 * The per-organization rate limit of this api process (SVC_RATE_LIMIT_PER_SECOND, _BURST). An
 * interceptor runs after the guards, so the organization is the credential's; public routes
 * (health, metrics) carry no principal and are not limited.
 */
@Injectable()
export class RateLimitInterceptor implements NestInterceptor {
  private readonly buckets: TokenBuckets;

  constructor(@Inject(SETTINGS) settings: Settings) {
    this.buckets = new TokenBuckets(settings.rateLimit.perSecond, settings.rateLimit.burst);
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const org = context.switchToHttp().getRequest<FastifyRequest & { user?: { org?: unknown } }>().user?.org;
    if (typeof org === 'string') {
      const admission = this.buckets.take(org);
      if (!admission.admitted) {
        rateLimited.inc();
        throw rateLimitExceeded(`organization '${org}' is over its request rate limit`, admission.retryAfterSeconds);
      }
    }
    return next.handle();
  }
}
