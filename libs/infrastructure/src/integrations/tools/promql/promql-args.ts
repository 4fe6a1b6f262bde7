/**
 * The pure half of the PromQL tools: reading the model's arguments (times, durations), bounding a
 * range query's step before it is sent, and cutting an answer to the series, points and bytes limits.
 * Every function is linear in its input; inputs are length-checked first.
 */
import { jsonBytes } from '../bounded-body';
import { ToolError, ToolLimits } from '../tool-adapter.port';

/** Longest PromQL expression accepted (Prometheus has no limit of its own; a form body carries it). */
export const MAX_QUERY_LENGTH = 16 * 1024;
const MAX_TIME_TEXT = 64;

const UNIT_SECONDS: Record<string, number> = { y: 365 * 86400, w: 7 * 86400, d: 86400, h: 3600, m: 60, s: 1, ms: 0.001 };
/** Prometheus's duration syntax (`1h30m`, `5m`, `250ms`), units in descending order. */
const DURATION = /^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$/;
const DURATION_UNITS = ['y', 'w', 'd', 'h', 'm', 's', 'ms'];
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

export function queryArgument(args: Record<string, unknown>): string {
  const query = args.query;
  if (typeof query !== 'string' || query.trim() === '') throw new ToolError('INVALID_ARGUMENT', "'query' must be a non-empty PromQL expression");
  if (query.length > MAX_QUERY_LENGTH) throw new ToolError('INVALID_ARGUMENT', `'query' is longer than ${MAX_QUERY_LENGTH} characters`);
  return query;
}

/** A duration in seconds: a number of seconds, or Prometheus's syntax (`30s`, `5m`, `1h30m`). */
export function durationSeconds(value: unknown, field: string): number {
  let seconds: number | undefined;
  if (typeof value === 'number') seconds = value;
  else if (typeof value === 'string' && value.length <= MAX_TIME_TEXT) {
    if (NUMBER.test(value)) seconds = Number(value);
    else {
      const match = DURATION.exec(value);
      if (match && value !== '') seconds = DURATION_UNITS.reduce((sum, unit, i) => sum + Number(match[i + 1] ?? 0) * UNIT_SECONDS[unit], 0);
    }
  }
  if (seconds === undefined || !Number.isFinite(seconds) || seconds <= 0) {
    throw new ToolError('INVALID_ARGUMENT', `'${field}' must be a positive duration: seconds, or like 30s, 5m, 1h30m`);
  }
  return seconds;
}

/**
 * A point in time in Unix seconds: a number of seconds, an RFC 3339 timestamp, `now`, or `now-<duration>`
 * (`now-1h`). `nowMs` is the clock of the call.
 */
export function timeSeconds(value: unknown, field: string, nowMs: number): number {
  let seconds: number | undefined;
  if (typeof value === 'number') seconds = value;
  else if (typeof value === 'string' && value.length <= MAX_TIME_TEXT) {
    const text = value.trim();
    if (NUMBER.test(text)) seconds = Number(text);
    else if (text === 'now') seconds = nowMs / 1000;
    else if (text.startsWith('now-')) seconds = nowMs / 1000 - durationSeconds(text.slice(4), field);
    else if (/^\d{4}-\d{2}-\d{2}T/.test(text)) {
      const ms = Date.parse(text);
      if (!Number.isNaN(ms)) seconds = ms / 1000;
    }
  }
  if (seconds === undefined || !Number.isFinite(seconds) || seconds < 0) {
    throw new ToolError('INVALID_ARGUMENT', `'${field}' must be a time: Unix seconds, RFC 3339 (2024-05-01T12:00:00Z), 'now' or 'now-1h'`);
  }
  return seconds;
}

/**
 * The step a range query is sent with: the one asked for, raised when needed so that no series can
 * have more than `maxPointsPerSeries` points (Prometheus answers floor((end-start)/step)+1 per series).
 * Steps are in milliseconds precision, as Prometheus reads them.
 */
export function boundedStep(start: number, end: number, step: number, maxPointsPerSeries: number): number {
  const range = end - start;
  // 1 ms is the least step Prometheus can read.
  if (maxPointsPerSeries <= 1) return Math.max(step, range + 0.001, 0.001);
  const least = Math.ceil((range * 1000) / (maxPointsPerSeries - 1)) / 1000;
  return Math.max(step, least, 0.001);
}

/** Points a range query answers per series for this step. */
export function pointsPerSeries(start: number, end: number, step: number): number {
  return Math.floor((end - start) / step) + 1;
}

/** A series of a Prometheus answer: `metric` labels and `value` (vector) or `values` (matrix), maybe native `histogram(s)`. */
interface Series {
  metric?: Record<string, string>;
  value?: unknown;
  values?: unknown[];
  histogram?: unknown;
  histograms?: unknown[];
  [key: string]: unknown;
}

export interface CappedResult {
  resultType: string;
  result: unknown;
  /** Series in Prometheus's answer, before any cut. */
  seriesTotal?: number;
  truncated?: true;
  /** What was cut and by which limit. */
  truncation?: string;
}

function pointsOf(series: Series): number {
  if (Array.isArray(series.values) || Array.isArray(series.histograms)) return (series.values?.length ?? 0) + (series.histograms?.length ?? 0);
  return 1;
}

/** The series's latest `keep` points (float samples first, then native histograms, as Prometheus lists them). */
function latestPoints(series: Series, keep: number): Series {
  const values = series.values ?? [];
  const histograms = series.histograms ?? [];
  const fromHistograms = Math.min(histograms.length, keep);
  const fromValues = keep - fromHistograms;
  const cut: Series = { ...series, values: fromValues > 0 ? values.slice(values.length - fromValues) : [] };
  if (series.histograms) cut.histograms = fromHistograms > 0 ? histograms.slice(histograms.length - fromHistograms) : [];
  if (!series.histograms) delete cut.histograms;
  return cut;
}

/**
 * Cuts Prometheus's `data` to the limits: at most `maxSeries` series, at most `maxPoints` points in all
 * (the series that crosses the budget keeps its latest points), and at most `maxBytes` of JSON (whole
 * series dropped from the end). A cut answer says `truncated` and what was cut.
 */
export function capResult(data: { resultType?: unknown; result?: unknown }, limits: Pick<ToolLimits, 'maxSeries' | 'maxPoints' | 'maxBytes'>): CappedResult {
  const resultType = typeof data.resultType === 'string' ? data.resultType : 'unknown';
  if (!Array.isArray(data.result)) return { resultType, result: data.result ?? null };
  const all = data.result as Series[];
  const cuts: string[] = [];
  let series = all;
  if (series.length > limits.maxSeries) {
    series = series.slice(0, limits.maxSeries);
    cuts.push(`kept ${limits.maxSeries} of ${all.length} series (maxSeries)`);
  }
  const kept: Series[] = [];
  let points = 0;
  for (const s of series) {
    const n = pointsOf(s);
    if (points + n <= limits.maxPoints) {
      kept.push(s);
      points += n;
      continue;
    }
    const room = limits.maxPoints - points;
    if (room > 0 && n > 1) {
      kept.push(latestPoints(s, room));
      points += room;
    }
    const asked = series.reduce((sum, t) => sum + pointsOf(t), 0);
    cuts.push(`kept ${points} of ${asked} points (maxPoints); a series cut short keeps its latest points`);
    break;
  }
  // Bytes: room for the envelope, then whole series while they fit.
  const envelope = 512;
  let bytes = envelope;
  let fitting = 0;
  for (const s of kept) {
    const size = jsonBytes(s) + 1;
    if (bytes + size > limits.maxBytes) break;
    bytes += size;
    fitting++;
  }
  if (fitting < kept.length) cuts.push(`kept ${fitting} of ${kept.length} series to stay within ${limits.maxBytes} bytes (maxBytes)`);
  const result: CappedResult = { resultType, result: kept.slice(0, fitting), seriesTotal: all.length };
  if (cuts.length > 0) {
    result.truncated = true;
    result.truncation = cuts.join('; ');
  }
  return result;
}
