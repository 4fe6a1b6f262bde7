/**
 * TOOL_HTTP_REQUEST (issue 20): one request to the connection's HTTP API, on node:http(s).
 * - Only to the base URL: the model gives a relative path (http-request-args.ts); a redirect is followed
 *   (at most MAX_REDIRECTS) only while it stays under the base URL, else it is refused and reported.
 * - The connection's `headers` and credentials (`token`, `username`/`password`, `api_key`) are added
 *   here; the model cannot replace them, nor set Authorization, Cookie or Host.
 * - Bounded: one time budget for the whole call (resolution, redirects, body), the response body read
 *   up to maxBytes, the result handed back within maxBytes.
 * - Private networks refused (address-guard.ts) unless `allow_private_host`; the request connects to
 *   the address that was vetted (a `lookup` answering only it), never to a second DNS answer.
 * Details (`details.http`): `base_url`, `headers`, `token`, `username`, `password`, `api_key`,
 * `api_key_header`, `timeout_seconds`, `allow_private_host` (docs/decisions.md, "PromQL and HTTP tools").
 */
import * as http from 'node:http';
import * as https from 'node:https';
import type { LookupFunction } from 'node:net';
import { cutToJsonBytes, jsonBytes, readCapped, redact } from '../bounded-body';
import { callSignal, callTimeoutMs, configuredHeaders, credentialHeaders, flag, requiredString, secretValues } from '../connection-details';
import { ToolAdapter, ToolConnection, ToolContext, ToolError } from '../tool-adapter.port';
import { HostLookup, ResolvedAddress, systemLookup, vetHost } from './address-guard';
import { addQuery, baseUrlOf, bodyOf, isUnderBase, mergeHeaders, methodOf, resolvePath } from './http-request-args';

export const HTTP_TOOLS = ['TOOL_HTTP_REQUEST'] as const;
export const MAX_REDIRECTS = 3;
/** Response headers handed back: all but Set-Cookie, each value cut at 1 KiB, at most 4 KiB in all. */
const MAX_HEADER_VALUE = 1024;
const MAX_HEADER_BYTES = 4 * 1024;
const TEXT_TYPES = /^(text\/|application\/(json|[\w.+-]*\+json|xml|[\w.+-]*\+xml|javascript|x-www-form-urlencoded|x-ndjson|yaml|x-yaml))/i;
const JSON_TYPES = /^application\/(json|[\w.+-]*\+json)/i;

export class HttpToolAdapter implements ToolAdapter {
  readonly connectionType = 'CONNECTION_TYPE_HTTP';
  readonly tools: readonly string[] = HTTP_TOOLS;

  /** `lookup` resolves hostnames (tests answer for names they do not own). */
  constructor(private readonly lookup: HostLookup = systemLookup) {}

  async run(tool: string, args: Record<string, unknown>, connection: ToolConnection, context: ToolContext): Promise<Record<string, unknown>> {
    if (tool !== 'TOOL_HTTP_REQUEST') throw new ToolError('INVALID_ARGUMENT', `${tool} is not a tool of ${this.connectionType}`);
    const { limits } = context;
    // Everything the model wrote is checked before any name is resolved or socket opened.
    const base = baseUrlOf(requiredString(connection, 'base_url'), connection.name);
    let method = methodOf(args.method);
    let url = resolvePath(base, args.path);
    addQuery(url, args.query);
    // The base URL's own parameters (an API key, say) win over the model's of the same name.
    for (const name of new Set(base.search.keys())) url.searchParams.delete(name);
    for (const [name, value] of base.search) url.searchParams.append(name, value);
    const headers = mergeHeaders(args.headers, { ...configuredHeaders(connection), ...credentialHeaders(connection) });
    let body = bodyOf(args.body, headers, limits.maxBytes);

    const timeoutMs = callTimeoutMs(connection, limits.timeoutMs);
    const { signal, timedOut } = callSignal(timeoutMs, context.signal);
    try {
      const pinned = await raceAbort(vetHost(base.hostname, flag(connection, 'allow_private_host'), this.lookup, connection.name), signal);
      for (let hop = 0; ; hop++) {
        const res = await send(url, method, headers, body, pinned, signal);
        const location = res.headers.location;
        if (![301, 302, 303, 307, 308].includes(res.statusCode ?? 0) || location === undefined) return await resultOf(res, method, hop, limits.maxBytes, secretValues(connection));
        res.resume();
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new ToolError('UNAVAILABLE', `${connection.name}: the server redirected (HTTP ${res.statusCode}) to a Location that is not a URL`);
        }
        if (!isUnderBase(next, base)) {
          const where = `${next.origin}${next.pathname}`.slice(0, 300);
          throw new ToolError('PERMISSION_DENIED', `${connection.name}: the server redirected (HTTP ${res.statusCode}) to ${where}, outside the connection's base URL ${base.origin}${base.path}; not followed`);
        }
        if (hop + 1 > MAX_REDIRECTS) throw new ToolError('UNAVAILABLE', `${connection.name}: more than ${MAX_REDIRECTS} redirects`);
        // As browsers do: 303 (and 301/302 after a POST) continue as a GET without the body.
        if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')) {
          if (method !== 'HEAD') method = 'GET';
          body = undefined;
          delete headers['content-type'];
        }
        url = next;
      }
    } catch (error) {
      if (error instanceof ToolError) throw error;
      if (timedOut()) throw new ToolError('DEADLINE_EXCEEDED', `${connection.name}: no complete answer within ${timeoutMs} ms`);
      if (context.signal?.aborted) throw new ToolError('UNAVAILABLE', `${connection.name}: the call was given up`);
      const code = (error as { code?: unknown }).code;
      throw new ToolError('UNAVAILABLE', `${connection.name}: ${base.origin} cannot be reached (${typeof code === 'string' ? code : 'network error'})`);
    }
  }

  async close(): Promise<void> {
    // Each call has its own socket (agent: false): nothing pooled to release.
  }
}

/** One request on its own socket, connected to the vetted address whatever DNS answers now. */
function send(url: URL, method: string, headers: Record<string, string>, body: Buffer | undefined, pinned: ResolvedAddress, signal: AbortSignal): Promise<http.IncomingMessage> {
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = transport.request(url, { method, headers, signal, lookup, agent: false }, resolve);
    request.on('error', reject);
    request.end(body);
  });
}

/** Waits for `work` unless the call's time runs out first (a name lookup cannot itself be aborted). */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * The answer as the model sees it: status, headers, body (parsed when JSON and whole), within maxBytes.
 * A server that echoes the request (its headers, say) gets the connection's secrets replaced.
 */
async function resultOf(res: http.IncomingMessage, method: string, redirects: number, maxBytes: number, secrets: readonly string[]): Promise<Record<string, unknown>> {
  const result: Record<string, unknown> = { status: res.statusCode, headers: headersOf(res, secrets) };
  if (redirects > 0) result.redirects = redirects;
  const contentType = String(res.headers['content-type'] ?? '');
  if (method === 'HEAD') {
    res.resume();
    return result;
  }
  const { bytes, truncated } = await readCapped(res, maxBytes);
  const cuts: string[] = [];
  if (truncated) cuts.push(`body cut at ${maxBytes} bytes (maxBytes)`);
  if (contentType !== '' && !TEXT_TYPES.test(contentType)) {
    result.body = null;
    result.bodyOmitted = `${bytes.length}${truncated ? '+' : ''} bytes of ${contentType.slice(0, 100)} (not text)`;
  } else {
    const text = redact(bytes.toString('utf8'), secrets, truncated);
    let body: unknown = text;
    if (!truncated && JSON_TYPES.test(contentType)) {
      try {
        body = JSON.parse(text) as unknown;
      } catch {
        body = text;
      }
    }
    result.body = body;
    if (jsonBytes(result) > maxBytes) {
      // Re-encoding (escapes) grew it past the limit: hand back the text, cut to fit.
      const rest = jsonBytes({ ...result, body: '', truncated: true, truncation: cuts.concat('body cut to fit maxBytes').join('; ') });
      result.body = cutToJsonBytes(typeof body === 'string' ? body : text, Math.max(0, maxBytes - rest));
      if (!truncated) cuts.push(`body cut to fit ${maxBytes} bytes of result (maxBytes)`);
    }
  }
  if (cuts.length > 0) {
    result.truncated = true;
    result.truncation = cuts.join('; ');
  }
  return result;
}

function headersOf(res: http.IncomingMessage, secrets: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  let bytes = 0;
  for (const [name, value] of Object.entries(res.headers)) {
    if (name === 'set-cookie' || value === undefined) continue;
    const text = redact(Array.isArray(value) ? value.join(', ') : value, secrets).slice(0, MAX_HEADER_VALUE);
    bytes += name.length + text.length;
    if (bytes > MAX_HEADER_BYTES) break;
    headers[name] = text;
  }
  return headers;
}

