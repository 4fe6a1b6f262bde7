import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';
/** Long enough for a UUID, a trace id or a proxy's own format; short enough for a log line. */
export const REQUEST_ID_MAX_LENGTH = 128;
/** Letters, digits and `-_.:/+=`: no spaces, quotes or control characters to forge a log line with. */
const SANE = /^[A-Za-z0-9._:/+=-]+$/;

/** The caller's X-Request-Id when sane, else a fresh UUID (Fastify's genReqId: the request's `id`). */
export function requestIdOf(request: IncomingMessage): string {
  const offered = request.headers[REQUEST_ID_HEADER];
  return typeof offered === 'string' && offered.length <= REQUEST_ID_MAX_LENGTH && SANE.test(offered) ? offered : randomUUID();
}
