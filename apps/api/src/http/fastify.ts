/**
 * The HTTP server under Nest: Fastify with our JSON body parser (and raw bytes on the artifact upload) and our error shape on the paths
 * Fastify answers by itself, before any Nest filter could (a malformed URL, an over-long path
 * parameter, oversized or garbled HTTP headers). Everything else reaches ApiExceptionFilter.
 */
import type { NestApplicationOptions } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { DomainError, type ErrorCode, invalid } from '@svc/domain/shared/domain-error';
import { isPlainObject, type JsonObject } from '@svc/domain/shared/json-path';
import type { Settings } from '@svc/infrastructure/config/env';
import type { Logger } from 'pino';
import { errorBody } from './errors';
import { checkInput, parseJsonBody } from '@svc/infrastructure/requests/input-limits';
import { noteError, observeRequests } from '../observability/http-observability';
import { requestIdOf } from '../observability/request-id';

/**
 * Routes that verify a signature over the exact bytes received (HandleChatEvent): their parsed body
 * also keeps the raw text, as `rawBody` on the request. No other route holds a second copy.
 */
export const RAW_BODY_PATHS: ReadonlySet<string> = new Set(['/v1/chat-connections:handleEvent', '/v1/tracker-connections:handleEvent']);
/** Inbound webhooks (`/v1/webhooks/{kind}/{token}`), whose paths end in a token. */
export const RAW_BODY_PREFIX = '/v1/webhooks/';
const keepsRawBody = (url: string) => {
  const path = url.split('?')[0];
  return RAW_BODY_PATHS.has(path) || path.startsWith(RAW_BODY_PREFIX);
};

/** A request of a RAW_BODY_PATHS route. */
export type WithRawBody = FastifyRequest & { rawBody?: string };

/**
 * A signed route's body: the raw text its signature covers, and the parsed JSON object, checked
 * against the input limits every other route's body meets in the request parser (these routes read
 * their body themselves). `what` names it in the error.
 */
export function signedBody(req: WithRawBody, what: string): { raw: string; body: JsonObject } {
  const raw = req.rawBody;
  const body = req.body;
  if (raw === undefined || !isPlainObject(body)) throw invalid(`the ${what} must be a JSON object`);
  checkInput(body, what);
  return { raw, body };
}

/** Nest must not add its own parsers (it would accept `application/x-www-form-urlencoded`). */
export const HTTP_APP_OPTIONS: NestApplicationOptions = { bodyParser: false };

export function httpAdapter(settings: Settings, logger: Logger): FastifyAdapter {
  const send = (reply: FastifyReply, error: DomainError) => {
    const body = errorBody(error, settings.typeHost, reply.request.id);
    noteError(reply.request, body);
    return reply.code(body.error.code).header('content-type', 'application/json').send(body);
  };
  const adapter = new FastifyAdapter({
    bodyLimit: settings.bodyLimitBytes,
    ...serverTimeouts(settings.http),
    // No logger inside Fastify: it would make a child logger for every request (measurable on a
    // GetNote) to log lines we turn off anyway; observeRequests writes the one access line.
    requestIdHeader: false,
    genReqId: requestIdOf,
    frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
      if (error.code === 'FST_ERR_BAD_URL') return send(reply, new DomainError('INVALID_ARGUMENT', 'the URL path holds a malformed %-escape'));
      if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') return send(reply, new DomainError('INVALID_ARGUMENT', 'a segment of the URL path is too long'));
      return send(reply, new DomainError('INVALID_ARGUMENT', 'the request could not be routed'));
    },
    clientErrorHandler: (error, socket) => answerClientError(error, socket, settings.typeHost),
  });
  // Only JSON bodies: a browser can send a form or text/plain to another site without asking, so
  // accepting those would let any page write with the Basic credentials the browser holds.
  const fastify = adapter.getInstance();
  observeRequests(fastify, logger);
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: settings.bodyLimitBytes }, (request, body, done) => {
    try {
      if (keepsRawBody(request.url)) (request as WithRawBody).rawBody = body as string;
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  // Raw bytes only where a route streams them (the artifact upload): the request stream is handed
  // through unread, so no body limit applies here; the route enforces its own while streaming.
  fastify.addContentTypeParser('application/octet-stream', (request, payload, done) => {
    if (request.method === 'PUT' && request.routeOptions.url === ARTIFACT_UPLOAD_ROUTE) return done(null, payload);
    done(new DomainError('INVALID_ARGUMENT', 'content type must be application/json (a request with a body sends it as JSON)'), undefined);
  });
  return adapter;
}

/**
 * A client must send its whole request head within `headersTimeoutMs`, and a socket with no traffic
 * either way for `idleTimeoutMs` is closed (a stalled body; the 5,000 half-open sockets of issue 16
 * were held a minute and more). Node checks the head deadline every `connectionsCheckingInterval`
 * (30 s by default), so that is kept to a fraction of the deadline.
 *
 * No whole-request deadline by default: Node's requestTimeout counts until the body is fully
 * received, so it would cut a 64 MiB upload on a slow link that is still sending (tried: it does);
 * it never applies to the response, so a long SSE stream is not its concern. An SSE stream stays
 * within the idle timeout by its heartbeat (SVC_NOTIFY_HEARTBEAT_MS, below it). keepAliveTimeout
 * stays Fastify's 72 s (above the usual 60 s of load balancers, so the server never closes first).
 */
export function serverTimeouts(timeouts: Settings['http']) {
  return {
    connectionTimeout: timeouts.idleTimeoutMs,
    requestTimeout: timeouts.requestTimeoutMs,
    http: {
      headersTimeout: timeouts.headersTimeoutMs,
      // The deadline is enforced within a quarter of itself, and at most a second late.
      connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(timeouts.headersTimeoutMs / 4))),
    },
  };
}

/** The one route that takes `application/octet-stream` (apps/api/src/artifacts). */
export const ARTIFACT_UPLOAD_ROUTE = '/v1/artifacts/:sha256';

/**
 * Errors Node's HTTP parser raises before there is a request (headers over `--max-http-header-size`,
 * 16 KiB by default; a garbled request line; a client that sends too slowly), answered on the socket.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket, typeHost: string): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [code, message]: [ErrorCode, string] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? ['INVALID_ARGUMENT', 'request headers are too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? ['DEADLINE_EXCEEDED', 'the request was not received in time']
        : ['INVALID_ARGUMENT', 'malformed HTTP request'];
  const payload = errorBody(new DomainError(code, message), typeHost);
  const body = JSON.stringify(payload);
  const status = `${payload.error.code} ${STATUS_CODES[payload.error.code]}`;
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
