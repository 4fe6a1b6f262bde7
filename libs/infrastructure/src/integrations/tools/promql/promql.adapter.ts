/**
 * The PromQL tools (issue 20) over the Prometheus HTTP API: instant queries, range queries and the
 * list of metric names, through Node's fetch, each call bounded in time (AbortSignal.timeout, also
 * sent to Prometheus as its own `timeout`), in series, points and bytes (promql-args.ts).
 * Details (`details.prometheus`): `url` (the base URL, a path prefix allowed), and optionally `token`
 * (bearer), `username`/`password` (Basic), `headers` (a map), `timeout_seconds` (lowers the limit).
 * docs/decisions.md, "PromQL and HTTP tools (issue 20)".
 */
import { readCapped } from '../bounded-body';
import { callSignal, callTimeoutMs, configuredHeaders, credentialHeaders, optionalString, requiredString } from '../connection-details';
import { ToolAdapter, ToolConnection, ToolContext, ToolError, ToolErrorCode } from '../tool-adapter.port';
import { boundedStep, capResult, durationSeconds, MAX_QUERY_LENGTH, pointsPerSeries, queryArgument, timeSeconds } from './promql-args';

export const PROMQL_TOOLS = ['TOOL_PROMQL_QUERY', 'TOOL_PROMQL_QUERY_RANGE', 'TOOL_PROMQL_LIST_METRICS'] as const;

/** Largest Prometheus answer read (it is parsed whole before being cut to the limits). */
export const MAX_PROMETHEUS_ANSWER_BYTES = 16 * 1024 * 1024;
/** Prometheus itself refuses a range query of more points per series. */
const PROMETHEUS_MAX_POINTS_PER_SERIES = 11_000;
const MAX_SEARCH_LENGTH = 256;
const MAX_WARNINGS = 10;

interface Endpoint {
  /** The API's base, without a trailing slash (`https://prom.internal/prometheus`). */
  base: string;
  origin: string;
  headers: Record<string, string>;
}

interface PrometheusAnswer {
  status?: string;
  data?: unknown;
  errorType?: string;
  error?: string;
  warnings?: unknown;
}

export class PromqlToolAdapter implements ToolAdapter {
  readonly connectionType = 'CONNECTION_TYPE_PROMETHEUS';
  readonly tools: readonly string[] = PROMQL_TOOLS;

  /** `now` is the clock `now` and `now-1h` are read against (tests fix it). */
  constructor(private readonly now: () => number = Date.now) {}

  async run(tool: string, args: Record<string, unknown>, connection: ToolConnection, context: ToolContext): Promise<Record<string, unknown>> {
    const endpoint = endpointOf(connection);
    const { limits } = context;
    switch (tool) {
      case 'TOOL_PROMQL_QUERY': {
        const form = new URLSearchParams({ query: queryArgument(args) });
        if (args.time !== undefined) form.set('time', seconds(timeSeconds(args.time, 'time', this.now())));
        const answer = await this.call(endpoint, '/api/v1/query', form, connection, context);
        return withWarnings({ ...capResult(dataOf(answer), limits) }, answer);
      }
      case 'TOOL_PROMQL_QUERY_RANGE': {
        const query = queryArgument(args);
        const nowMs = this.now();
        // Rounded first as Prometheus reads them (milliseconds), so the step is bounded for the range it evaluates.
        const start = Number(seconds(timeSeconds(args.start, 'start', nowMs)));
        const end = Number(seconds(timeSeconds(args.end, 'end', nowMs)));
        if (end < start) throw new ToolError('INVALID_ARGUMENT', "'end' is before 'start'");
        const asked = durationSeconds(args.step, 'step');
        const step = boundedStep(start, end, asked, Math.min(limits.maxPoints, PROMETHEUS_MAX_POINTS_PER_SERIES));
        const form = new URLSearchParams({ query, start: seconds(start), end: seconds(end), step: seconds(step) });
        const answer = await this.call(endpoint, '/api/v1/query_range', form, connection, context);
        const result: Record<string, unknown> = { ...capResult(dataOf(answer), limits), step };
        if (step !== asked) {
          result.stepRequested = asked;
          result.stepNote = `step raised from ${asked}s to ${step}s so that a series has at most ${pointsPerSeries(start, end, step)} points (maxPoints)`;
        }
        return withWarnings(result, answer);
      }
      case 'TOOL_PROMQL_LIST_METRICS': {
        const params = new URLSearchParams();
        if (args.match !== undefined) {
          if (typeof args.match !== 'string' || args.match.trim() === '' || args.match.length > MAX_QUERY_LENGTH) {
            throw new ToolError('INVALID_ARGUMENT', `'match' must be a series selector of at most ${MAX_QUERY_LENGTH} characters, e.g. {job="api"}`);
          }
          params.set('match[]', args.match);
        }
        let search: string | undefined;
        if (args.search !== undefined) {
          if (typeof args.search !== 'string' || args.search.length > MAX_SEARCH_LENGTH) throw new ToolError('INVALID_ARGUMENT', `'search' must be text of at most ${MAX_SEARCH_LENGTH} characters`);
          search = args.search.toLowerCase();
        }
        const answer = await this.call(endpoint, '/api/v1/label/__name__/values', params, connection, context, 'GET');
        const all = Array.isArray(answer.data) ? answer.data.filter((n): n is string => typeof n === 'string') : [];
        const matching = search === undefined ? all : all.filter((n) => n.toLowerCase().includes(search));
        return withWarnings(capNames(matching, limits.maxRows, limits.maxBytes), answer);
      }
      default:
        throw new ToolError('INVALID_ARGUMENT', `${tool} is not a tool of ${this.connectionType}`);
    }
  }

  async close(): Promise<void> {
    // fetch's global pool is shared with the process; nothing of its own to release.
  }

  private async call(endpoint: Endpoint, path: string, params: URLSearchParams, connection: ToolConnection, context: ToolContext, method: 'GET' | 'POST' = 'POST'): Promise<PrometheusAnswer> {
    const timeoutMs = callTimeoutMs(connection, context.limits.timeoutMs);
    // Prometheus stops evaluating too when the call's time is up.
    if (method === 'POST') params.set('timeout', `${timeoutMs}ms`);
    const { signal, timedOut } = callSignal(timeoutMs, context.signal);
    const url = method === 'GET' && params.toString() !== '' ? `${endpoint.base}${path}?${params}` : `${endpoint.base}${path}`;
    let status: number;
    let text: string;
    try {
      const res = await fetch(url, {
        method,
        headers: method === 'POST' ? { ...endpoint.headers, 'content-type': 'application/x-www-form-urlencoded' } : endpoint.headers,
        body: method === 'POST' ? params.toString() : undefined,
        signal,
        // Credentials go to the configured server only: a redirect is an answer to report, not to follow.
        redirect: 'manual',
      });
      status = res.status;
      const { bytes, truncated } = await readCapped(res.body, MAX_PROMETHEUS_ANSWER_BYTES);
      if (truncated) {
        throw new ToolError('INVALID_ARGUMENT', `Prometheus's answer is larger than ${MAX_PROMETHEUS_ANSWER_BYTES} bytes: narrow the query (a selector, sum by (...), topk, a larger step)`);
      }
      text = bytes.toString('utf8');
    } catch (error) {
      if (error instanceof ToolError) throw error;
      if (timedOut()) throw new ToolError('DEADLINE_EXCEEDED', `${connection.name}: Prometheus did not answer within ${timeoutMs} ms`);
      if (context.signal?.aborted) throw new ToolError('UNAVAILABLE', `${connection.name}: the call was given up`);
      throw new ToolError('UNAVAILABLE', `${connection.name}: Prometheus at ${endpoint.origin} cannot be reached (${causeOf(error)})`);
    }
    let answer: PrometheusAnswer | undefined;
    try {
      answer = JSON.parse(text) as PrometheusAnswer;
    } catch {
      answer = undefined;
    }
    if (answer?.status === 'success') return answer;
    if (answer?.status === 'error') {
      throw new ToolError(codeOf(answer.errorType), `Prometheus: ${answer.errorType ?? 'error'}: ${String(answer.error ?? '').slice(0, 1000)}`);
    }
    // Not the API's JSON (a proxy's page, a redirect): only the status is reported, never the body.
    const hint = status === 401 || status === 403 ? ' (check the connection\'s credentials)' : status >= 300 && status < 400 ? ' (a redirect, not followed)' : '';
    throw new ToolError('UNAVAILABLE', `${connection.name}: Prometheus at ${endpoint.origin} answered HTTP ${status} without an API answer${hint}`);
  }
}

function endpointOf(connection: ToolConnection): Endpoint {
  const raw = requiredString(connection, 'url');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ToolError('FAILED_PRECONDITION', `${connection.name}: details field 'url' is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ToolError('FAILED_PRECONDITION', `${connection.name}: details field 'url' must be http or https`);
  const headers = { ...configuredHeaders(connection), ...credentialHeaders(connection) };
  // fetch refuses a URL with credentials in it: they become Basic, unless the details name others.
  if ((url.username || url.password) && headers.authorization === undefined && optionalString(connection, 'username') === undefined) {
    headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
  }
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  return { base: url.toString().replace(/\/+$/, ''), origin: url.origin, headers };
}

function dataOf(answer: PrometheusAnswer): { resultType?: unknown; result?: unknown } {
  return answer.data !== null && typeof answer.data === 'object' ? (answer.data as { resultType?: unknown; result?: unknown }) : {};
}

function withWarnings(result: Record<string, unknown>, answer: PrometheusAnswer): Record<string, unknown> {
  if (Array.isArray(answer.warnings) && answer.warnings.length > 0) result.warnings = answer.warnings.slice(0, MAX_WARNINGS).map((w) => String(w).slice(0, 500));
  return result;
}

/** Metric names, at most `maxNames` and `maxBytes` of JSON. */
export function capNames(names: string[], maxNames: number, maxBytes: number): Record<string, unknown> {
  const kept: string[] = [];
  let bytes = 256;
  for (const name of names) {
    bytes += Buffer.byteLength(name, 'utf8') + 4;
    if (kept.length >= maxNames || bytes > maxBytes) break;
    kept.push(name);
  }
  const result: Record<string, unknown> = { metrics: kept, total: names.length };
  if (kept.length < names.length) {
    result.truncated = true;
    result.truncation = `kept ${kept.length} of ${names.length} names (${kept.length >= maxNames ? 'maxRows' : 'maxBytes'}); narrow with 'match' or 'search'`;
  }
  return result;
}

/** Seconds as Prometheus reads them (millisecond precision). */
function seconds(value: number): string {
  return String(Math.round(value * 1000) / 1000);
}

function codeOf(errorType: string | undefined): ToolErrorCode {
  if (errorType === 'bad_data') return 'INVALID_ARGUMENT';
  if (errorType === 'timeout') return 'DEADLINE_EXCEEDED';
  return 'UNAVAILABLE';
}

/** A network failure's code (`ECONNREFUSED`) or fetch's short reason (`bad port`); the URL's credentials were removed before. */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string' && cause.message !== '') return cause.message.slice(0, 100);
  return 'network error';
}
