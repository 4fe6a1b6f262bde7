import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { infoLineWriter } from '@svc/infrastructure/observability/logger';
import { httpRequestDuration } from '@svc/infrastructure/observability/metrics';
import { methodOf } from './method-label';
import type { ErrorBody } from '../http/errors';
import { REQUEST_ID_HEADER } from './request-id';

const ERROR = Symbol('svc.error');

/** What the access line says about an error answer: the google.rpc status, the ErrorInfo reason, the message. */
interface ErrorNote {
  error: string;
  reason?: string;
  message: string;
}

type Observed = FastifyRequest & { user?: { org?: unknown }; [ERROR]?: ErrorNote };

/** Called where an error body is sent, so the request's access line says which error it was. */
export function noteError(request: FastifyRequest, body: ErrorBody): void {
  const info = body.error.details.find((d): d is ErrorBody['error']['details'][number] & { reason: string } => 'reason' in d);
  (request as Observed)[ERROR] = { error: body.error.status, ...(info ? { reason: info.reason } : {}), message: body.error.message };
}

/**
 * Per request: the id echoed in `X-Request-Id`, one access log line and one latency sample. The id
 * reaches the events the request appends explicitly (principal, actor, command metadata): an
 * AsyncLocalStorage context cost about 15% of a GetNote on Node 20 (docs/performance.md).
 * An event stream also logs when it opens: its access line comes only when it ends, hours later.
 */
export function observeRequests(fastify: FastifyInstance, logger: Logger): void {
  const info = infoLineWriter(logger);
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
  fastify.addHook('onSend', (request, reply, payload, done) => {
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.startsWith('text/event-stream')) logger.info(fields(request, reply), 'stream opened');
    done(null, payload);
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    accessLine(info, request, reply);
    done();
  });
}

/** Only what identifies the call: never a header, a body or a query string (filters, tokens). */
function fields(request: FastifyRequest, reply: FastifyReply) {
  const org = (request as Observed).user?.org;
  return {
    requestId: request.id,
    org: typeof org === 'string' ? org : undefined,
    method: methodOf(request),
    http: `${request.method} ${redactPath(request.url.split('?')[0])}`,
    status: reply.statusCode,
  };
}

/** An inbound webhook's path ends in its secret token (`/v1/webhooks/{kind}/{token}`): logged without it. */
export function redactPath(path: string): string {
  return path.startsWith('/v1/webhooks/') ? path.replace(/^(\/v1\/webhooks\/[^/]*\/).*$/, '$1***') : path;
}

function accessLine(info: ReturnType<typeof infoLineWriter>, request: FastifyRequest, reply: FastifyReply): void {
  const line = fields(request, reply);
  const ms = reply.elapsedTime;
  httpRequestDuration.observe({ method: line.method, status: String(line.status) }, ms / 1000);
  // An error answer's messages never hold a secret (they may quote an input, cut short: errors.ts capQuotes).
  info({ ...line, ...(request as Observed)[ERROR], ms: Math.round(ms * 100) / 100 }, 'request');
}
