import { DomainError, type ErrorCode } from '@svc/domain/shared/domain-error';

/** The standard google.rpc code to HTTP status mapping (ARCHITECTURE.md, "Wire"). */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  OUT_OF_RANGE: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  ABORTED: 409,
  RESOURCE_EXHAUSTED: 429,
  INTERNAL: 500,
  UNIMPLEMENTED: 501,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
};

export interface ErrorBody {
  error: {
    code: number;
    status: ErrorCode;
    message: string;
    details: Array<ErrorInfo | RequestInfo>;
  };
}

interface ErrorInfo {
  '@type': string;
  reason: string;
  domain: string;
  metadata: Record<string, string>;
}

/** google.rpc.RequestInfo: the request's id (X-Request-Id), to quote when reporting the error. */
interface RequestInfo {
  '@type': string;
  requestId: string;
}

export function errorBody(error: DomainError, typeHost: string, requestId?: string): ErrorBody {
  const details: ErrorBody['error']['details'] = [];
  if (error.reason) details.push({ '@type': `${typeHost}/google.rpc.ErrorInfo`, reason: error.reason, domain: 'svc', metadata: error.metadata });
  if (requestId) details.push({ '@type': `${typeHost}/google.rpc.RequestInfo`, requestId });
  return { error: { code: HTTP_STATUS[error.code], status: error.code, message: capQuotes(error.message), details } };
}

export const unauthenticated = (message = 'missing or invalid credentials') => new DomainError('UNAUTHENTICATED', message);
export const unimplemented = (message: string) => new DomainError('UNIMPLEMENTED', message);

/**
 * The answer of every rate limit (per organization, failed sign-ins): RESOURCE_EXHAUSTED, reason
 * RATE_LIMIT_EXCEEDED, the wait in the message and in `retryAfterSeconds`, which ApiExceptionFilter
 * also sends as the Retry-After header.
 */
export const rateLimitExceeded = (message: string, retryAfterSeconds: number, metadata: Record<string, string> = {}) =>
  new DomainError('RESOURCE_EXHAUSTED', `${message}; retry after ${retryAfterSeconds} s`, 'RATE_LIMIT_EXCEEDED', {
    ...metadata,
    retryAfterSeconds: String(retryAfterSeconds),
  });

/** The most characters of one quoted input an error message repeats, and of a whole message. */
export const QUOTE_LIMIT = 64;
export const MESSAGE_LIMIT = 1_000;
const QUOTED = /(['"])([^'"]*)\1/g;
const cut = (text: string, limit: number) => (text.length > limit ? `${text.slice(0, limit)}…` : text);

/**
 * Messages quote what the request held (`got '...'`); a quote is cut to QUOTE_LIMIT characters and
 * the message to MESSAGE_LIMIT, here for every error, so no message can echo a whole large input.
 */
export function capQuotes(message: string): string {
  return cut(message.replace(QUOTED, (_all, quote: string, text: string) => `${quote}${cut(text, QUOTE_LIMIT)}${quote}`), MESSAGE_LIMIT);
}
