import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { httpRequestDuration } from '@svc/infrastructure/observability/metrics';
import { runInRequest } from '@svc/infrastructure/observability/request-context';
import { methodOf } from './method-label';
import { REQUEST_ID_HEADER } from './request-id';

type WithPrincipal = FastifyRequest & { user?: { org?: unknown } };

/**
 * Per request: the id echoed in `X-Request-Id`, the request's async context (so the command service
 * puts the id into every event the request appends), one access log line and one latency sample.
 */
export function observeRequests(fastify: FastifyInstance, logger: Logger): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    runInRequest({ requestId: request.id }, done);
  });
  // The body arrives on the socket's own events, outside the context: enter it again once parsed
  // (as @fastify/request-context does), before guards and handlers run.
  fastify.addHook('preValidation', (request, _reply, done) => runInRequest({ requestId: request.id }, done));
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
