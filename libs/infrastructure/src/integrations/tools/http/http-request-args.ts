/**
 * The pure half of TOOL_HTTP_REQUEST: where a model's relative path lands under the connection's base
 * URL, which methods and headers it may send, and how its query and body are encoded. Everything the
 * model writes is length-checked first; every check is linear.
 */
import { ToolError } from '../tool-adapter.port';

export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export const MAX_PATH_LENGTH = 2048;
export const MAX_HEADERS = 50;
export const MAX_HEADER_VALUE_LENGTH = 8 * 1024;
export const MAX_QUERY_PARAMETERS = 100;

/** Headers the model may never set: credentials, the target, and the message's framing. */
export const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
]);

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

/** A base URL as the adapter uses it: its origin, and its path as a directory (ending in `/`). */
export interface BaseUrl {
  origin: string;
  /** `/v2/` for `https://api.example.com/v2`; `/` for a bare origin. */
  path: string;
  /** The base URL's own query, sent with every request (kept out of every message: it may hold a key). */
  search: URLSearchParams;
  protocol: 'http:' | 'https:';
  hostname: string;
}

/** Reads a connection's `base_url`; errors name the connection and the field, never the URL (its query may hold a key). */
export function baseUrlOf(raw: string, connectionName: string): BaseUrl {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ToolError('FAILED_PRECONDITION', `${connectionName}: details field 'base_url' is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ToolError('FAILED_PRECONDITION', `${connectionName}: details field 'base_url' must be http or https`);
  if (url.username || url.password) throw new ToolError('FAILED_PRECONDITION', `${connectionName}: 'base_url' carries credentials; set them as username/password, token or api_key`);
  return {
    origin: url.origin,
    path: url.pathname.endsWith('/') ? url.pathname : `${url.pathname}/`,
    search: url.searchParams,
    protocol: url.protocol,
    hostname: url.hostname,
  };
}

/** Whether a URL is at or under the base (same origin, path inside the base path). */
export function isUnderBase(url: URL, base: BaseUrl): boolean {
  return url.origin === base.origin && (url.pathname.startsWith(base.path) || `${url.pathname}/` === base.path);
}

/**
 * The URL a model's `path` names: relative to the base path (a leading `/` too), never an absolute URL,
 * a `//host` reference, a backslash, a control character, an encoded slash, or `..` climbing out of the
 * base path once normalised (`%2e%2e` included, as URL parsing treats it as `..`).
 */
export function resolvePath(base: BaseUrl, path: unknown): URL {
  if (typeof path !== 'string') throw new ToolError('INVALID_ARGUMENT', "'path' must be a relative path, e.g. /v1/status");
  if (path.length > MAX_PATH_LENGTH) throw new ToolError('INVALID_ARGUMENT', `'path' is longer than ${MAX_PATH_LENGTH} characters`);
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(path)) throw new ToolError('INVALID_ARGUMENT', "'path' must be relative to the connection's base URL, not an absolute URL");
  if (path.startsWith('//')) throw new ToolError('INVALID_ARGUMENT', "'path' must not start with '//' (another host)");
  // URL parsing drops tabs and newlines and reads '\' as '/': neither may reshape the path unseen.
  if (/[\u0000-\u0020\u007f\\]/.test(path)) throw new ToolError('INVALID_ARGUMENT', "'path' must not hold spaces, control characters or backslashes (percent-encode them)");
  const queryAt = path.search(/[?#]/);
  const pathPart = queryAt < 0 ? path : path.slice(0, queryAt);
  if (/%(2f|5c)/i.test(pathPart)) throw new ToolError('INVALID_ARGUMENT', "'path' must not hold an encoded slash or backslash (%2F, %5C)");
  // './' keeps whatever follows a path, never a scheme or an authority.
  const url = new URL(`./${path.replace(/^\//, '')}`, `${base.origin}${base.path}`);
  url.hash = '';
  if (!isUnderBase(url, base)) throw new ToolError('INVALID_ARGUMENT', `'path' leaves the connection's base path ${base.path}`);
  return url;
}

export function methodOf(value: unknown): (typeof HTTP_METHODS)[number] {
  const method = typeof value === 'string' ? value.toUpperCase() : value === undefined ? 'GET' : '';
  const known = HTTP_METHODS.find((m) => m === method);
  if (!known) throw new ToolError('INVALID_ARGUMENT', `'method' must be one of ${HTTP_METHODS.join(', ')}`);
  return known;
}

/** Adds the model's `query` map (scalars or lists of scalars) to the URL. */
export function addQuery(url: URL, query: unknown): void {
  if (query === undefined || query === null) return;
  if (typeof query !== 'object' || Array.isArray(query)) throw new ToolError('INVALID_ARGUMENT', "'query' must be a map of parameter names to values");
  const entries = Object.entries(query as Record<string, unknown>);
  const scalar = (name: string, v: unknown): string => {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
    throw new ToolError('INVALID_ARGUMENT', `query parameter '${name}' must be a string, number, boolean or a list of them`);
  };
  let count = 0;
  for (const [name, value] of entries) {
    for (const v of Array.isArray(value) ? value : [value]) {
      if (++count > MAX_QUERY_PARAMETERS) throw new ToolError('INVALID_ARGUMENT', `'query' has more than ${MAX_QUERY_PARAMETERS} values`);
      url.searchParams.append(name, scalar(name, v));
    }
  }
}

/**
 * The request's headers: the model's (checked: names are tokens, values hold no line breaks, none is
 * reserved or set by the connection), then the connection's configured and credential headers, which
 * the model cannot replace. All names lowercased.
 */
export function mergeHeaders(modelHeaders: unknown, connectionHeaders: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = {};
  if (modelHeaders !== undefined && modelHeaders !== null) {
    if (typeof modelHeaders !== 'object' || Array.isArray(modelHeaders)) throw new ToolError('INVALID_ARGUMENT', "'headers' must be a map of header names to values");
    const entries = Object.entries(modelHeaders as Record<string, unknown>);
    if (entries.length > MAX_HEADERS) throw new ToolError('INVALID_ARGUMENT', `'headers' has more than ${MAX_HEADERS} entries`);
    for (const [name, value] of entries) {
      if (!TOKEN.test(name)) throw new ToolError('INVALID_ARGUMENT', `header name '${name.slice(0, 100)}' is not a valid header name`);
      const lower = name.toLowerCase();
      if (RESERVED_HEADERS.has(lower)) throw new ToolError('INVALID_ARGUMENT', `header '${name}' may not be set by a tool call`);
      if (lower in connectionHeaders) throw new ToolError('INVALID_ARGUMENT', `header '${name}' is set by the connection`);
      if (typeof value !== 'string' && typeof value !== 'number') throw new ToolError('INVALID_ARGUMENT', `header '${name}' must be a string`);
      const text = String(value);
      if (text.length > MAX_HEADER_VALUE_LENGTH || /[\r\n\u0000]/.test(text)) throw new ToolError('INVALID_ARGUMENT', `header '${name}' must be one line of at most ${MAX_HEADER_VALUE_LENGTH} characters`);
      headers[lower] = text;
    }
  }
  return { ...headers, ...connectionHeaders };
}

/** The request body: text as written, any other JSON value as JSON (content type set unless given). */
export function bodyOf(body: unknown, headers: Record<string, string>, maxBytes: number): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  let bytes: Buffer;
  if (typeof body === 'string') bytes = Buffer.from(body, 'utf8');
  else {
    bytes = Buffer.from(JSON.stringify(body), 'utf8');
    headers['content-type'] ??= 'application/json';
  }
  if (bytes.length > maxBytes) throw new ToolError('INVALID_ARGUMENT', `'body' is larger than ${maxBytes} bytes (maxBytes)`);
  return bytes;
}
