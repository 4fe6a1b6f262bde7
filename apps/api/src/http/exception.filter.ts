import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Inject, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DomainError, type ErrorCode } from '@svc/domain/shared/domain-error';
import { SETTINGS } from '@svc/infrastructure/nest/tokens';
import type { Settings } from '@svc/infrastructure/config/env';
import { describeError } from '@svc/infrastructure/projection/supervisor';
import { storeUnavailable } from '@svc/infrastructure/stores/store-unavailable';
import { noteError } from '../observability/http-observability';
import { errorBody } from './errors';

/**
 * Every failure leaves as the google.rpc-style error body. Unknown errors are logged with their
 * stack here and answered as INTERNAL without details: never a stack trace on the wire.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('api');

  constructor(@Inject(SETTINGS) private readonly settings: Settings) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const requestId = reply.request?.id;
    const error = toDomainError(exception);
    if (error.code === 'INTERNAL') {
      // Named by its request id, so the answer's RequestInfo leads to this line.
      this.logger.error(`request ${requestId ?? '-'}: ${exception instanceof Error ? exception.stack : String(exception)}`);
    } else if (error.reason === 'STORE_UNAVAILABLE' && error !== exception) {
      this.logger.warn(`request ${requestId ?? '-'}: answered UNAVAILABLE: ${describeError(exception)}`);
    }
    // The auth guard names the schemes its route accepts; anything else answering UNAUTHENTICATED offers Basic.
    if (error.code === 'UNAUTHENTICATED' && !reply.hasHeader('WWW-Authenticate')) void reply.header('WWW-Authenticate', 'Basic realm="svc"');
    // A limit that says when to come back says it in the header clients and proxies read (RFC 9110):
    // errors.ts rateLimitExceeded, the hash gate's UNAVAILABLE, the history gate, a store's transient fault.
    const retryAfter = error.metadata.retryAfterSeconds;
    if (retryAfter !== undefined && (error.code === 'RESOURCE_EXHAUSTED' || error.code === 'UNAVAILABLE')) void reply.header('Retry-After', retryAfter);
    const body = errorBody(error, this.settings.typeHost, requestId);
    if (reply.request) noteError(reply.request, body);
    void reply.status(body.error.code).header('content-type', 'application/json').send(body);
  }
}

const BY_HTTP_STATUS: Record<number, ErrorCode> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'UNIMPLEMENTED',
  409: 'ABORTED',
  413: 'INVALID_ARGUMENT',
  415: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  501: 'UNIMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export function toDomainError(exception: unknown): DomainError {
  if (exception instanceof DomainError) return exception;
  // A store that cannot answer right now (a leader election, a failover, a timeout): 503, not 500.
  const unavailable = storeUnavailable(exception);
  if (unavailable) return unavailable;
  // Nest hands Fastify's own errors (body parsing, size limits) over as HttpExceptions of their status.
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (status === 404) return new DomainError('NOT_FOUND', 'no such route');
    return new DomainError(BY_HTTP_STATUS[status] ?? 'INTERNAL', status >= 500 ? 'internal error' : (MESSAGES[status] ?? exception.message));
  }
  const fastify = exception as { statusCode?: number; message?: string };
  if (typeof fastify?.statusCode === 'number' && fastify.statusCode < 500) {
    return new DomainError(BY_HTTP_STATUS[fastify.statusCode] ?? 'INVALID_ARGUMENT', MESSAGES[fastify.statusCode] ?? fastify.message ?? 'bad request');
  }
  return new DomainError('INTERNAL', 'internal error');
}

/** Ours instead of Fastify's wording, for the statuses it answers before a handler runs. */
const MESSAGES: Record<number, string> = {
  413: 'request body is too large',
  415: 'content type must be application/json (a request with a body sends it as JSON)',
};
