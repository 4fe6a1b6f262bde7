import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { httpRequestDuration } from '@svc/infrastructure/observability/metrics';
import { methodOf } from './method-label';
import { REQUEST_ID_HEADER } from './request-id';

type WithPrincipal = FastifyRequest & { user?: { org?: unknown } };

/**
 * Per request: the id echoed in `X-Request-Id`, one access log line and one latency sample. The id
 * reaches the events the request appends explicitly (principal, actor, command metadata): an
 * AsyncLocalStorage context cost about 15% of a GetNote on Node 20 (docs/performance.md).
 */
export function observeRequests(fastify: FastifyInstance, logger: Logger): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    accessLine(logger, request, reply);
    done();
  });
}

function accessLine(logger: Logger, request: FastifyRequest, reply: FastifyReply): void {
  const method = methodOf(request);
  const status = reply.statusCode;
  const ms = reply.elapsedTime;
  httpRequestDuration.observe({ method, status: String(status) }, ms / 1000);
  const org = (request as WithPrincipal).user?.org;
  // Only what identifies the call: never a header, a body or a query string (filters, tokens).
  logger.info(
    {
      requestId: request.id,
      org: typeof org === 'string' ? org : undefined,
      method,
      http: `${request.method} ${request.url.split('?')[0]}`,
      status,
      ms: Math.round(ms * 100) / 100,
    },
    'request',
  );
}
