/**
 * A resource's history (every event of it, paged, with the fields each changed) and the resource as
 * of a past version or time, both read from its stream and folded with the aggregate's own fold.
 */
import { invalid, notFound } from '@svc/domain/shared/domain-error';
import { deepEqual } from '@svc/domain/shared/json-path';
import type { Resource } from '@svc/domain/shared/resource';
import { type EventStore, positionToString, type RecordedEvent } from '../event-store/event-store.port';
import { decodePageToken, encodePageToken, queryFingerprint } from '../query/page-token';
import type { HistoryTarget } from './targets';

/** One event of a resource as history shows it (lowerCamelCase, no secret). */
export interface HistoryEntry {
  /** Log position (the watch streams' event id). */
  position: string;
  /** Revision of the event in its stream: the `version` an as-of read takes. */
  version: number;
  type: string;
  /** When the command happened; `recordTime` is when the store wrote it. */
  time: string;
  recordTime: string;
  actor: string;
  subject: string;
  requestId?: string;
  correlationId: string;
  /** Top-level fields the event changed (`labels` for `labels.env`). */
  changedFields: string[];
  /** The new values, by path (`labels.env`), and the paths removed. */
  set: Record<string, unknown>;
  unset: string[];
}

export const DEFAULT_HISTORY_PAGE = 50;
export const MAX_HISTORY_PAGE = 1000;

export interface HistoryQuery {
  /** `time` / `time asc` (oldest first, the default) or `time desc`. */
  orderBy?: string;
  pageSize?: number;
  pageToken?: string;
}

export interface HistoryPage {
  entries: HistoryEntry[];
  nextPageToken: string;
}

/** Every event of the target, oldest or newest first, one page of it. NOT_FOUND when it has none. */
export async function readHistory(events: EventStore, target: HistoryTarget, query: HistoryQuery): Promise<HistoryPage> {
  const descending = parseOrder(query.orderBy);
  const size = pageSizeOf(query.pageSize);
  const fingerprint = queryFingerprint({ orderBy: descending ? 'time desc' : 'time', extra: { history: target.name } });
  const after = decodePageToken(query.pageToken, fingerprint);
  if (after && typeof after.after[0] !== 'number') throw invalid('page_token is invalid');
  const all = historyOf(await events.readStream(target.stream), target);
  if (all.length === 0) throw notFound(`'${target.name}' not found`);
  const ordered = descending ? all.reverse() : all;
  const from = after ? (after.after[0] as number) : undefined;
  const rest = from === undefined ? ordered : ordered.filter((e) => (descending ? e.version < from : e.version > from));
  const entries = rest.slice(0, size);
  const more = rest.length > size;
  return { entries, nextPageToken: more ? encodePageToken({ q: fingerprint, after: [entries[entries.length - 1].version] }) : '' };
}

/** The history entries of a whole stream, each with what it changed (one pass, one fold). */
export function historyOf(records: readonly RecordedEvent[], target: HistoryTarget): HistoryEntry[] {
  const fold = target.folder();
  const entries: HistoryEntry[] = [];
  for (const record of records) {
    const before = fold.current();
    fold.step(record);
    if (!target.concerns(record)) continue;
    const change = target.change?.(record) ?? diff(before, fold.current());
    if (change === null) continue;
    entries.push(entryOf(record, change));
  }
  return entries;
}

export interface AsOf {
  /** RFC 3339: the resource as it was at this instant (events that happened at or before it). */
  readTime?: string;
  /** Stream revision: the resource as it was right after this event. */
  version?: number;
}

/** The resource as it was at a past version or time; NOT_FOUND when it did not exist then. */
export async function readAsOf(events: EventStore, target: HistoryTarget, asOf: AsOf): Promise<{ resource: Resource; version: number; time: string }> {
  if ((asOf.readTime === undefined) === (asOf.version === undefined)) throw invalid('exactly one of read_time and version is required');
  let until: (record: RecordedEvent) => boolean;
  if (asOf.version !== undefined) {
    const version = asOf.version;
    if (!Number.isSafeInteger(version) || version < 0) throw invalid(`version must be a non-negative integer, got ${version}`);
    until = (record) => Number(record.revision) <= version;
  } else {
    const ms = Date.parse(asOf.readTime ?? '');
    if (!/^\d{4}-\d{2}-\d{2}T/.test(asOf.readTime ?? '') || Number.isNaN(ms)) throw invalid(`read_time must be an RFC 3339 timestamp, got '${String(asOf.readTime).slice(0, 64)}'`);
    until = (record) => Date.parse(timeOf(record)) <= ms;
  }
  const fold = target.folder();
  let last: RecordedEvent | undefined;
  for (const record of await events.readStream(target.stream)) {
    if (!until(record)) break;
    fold.step(record);
    if (target.concerns(record)) last = record;
  }
  const resource = fold.current();
  const when = asOf.version !== undefined ? `version ${asOf.version}` : asOf.readTime;
  if (!resource || !last) throw notFound(`'${target.name}' did not exist at ${when}`);
  return { resource, version: Number(last.revision), time: timeOf(last) };
}

function entryOf(record: RecordedEvent, change: { set: Record<string, unknown>; unset: readonly string[] }): HistoryEntry {
  const m = record.metadata;
  const changed = new Set([...Object.keys(change.set), ...change.unset].map((path) => path.split('.')[0]));
  return {
    position: positionToString(record.position),
    version: Number(record.revision),
    type: record.type,
    time: timeOf(record),
    recordTime: record.created,
    actor: m.actor,
    subject: m.subject,
    ...(m.requestId ? { requestId: m.requestId } : {}),
    correlationId: m.correlationId,
    changedFields: [...changed].sort(),
    set: { ...change.set },
    unset: [...change.unset],
  };
}

/** Top-level fields that differ between two folds (for aggregates whose events carry no patch). */
function diff(before: Resource | null, after: Resource | null): { set: Record<string, unknown>; unset: string[] } {
  const set: Record<string, unknown> = {};
  const unset: string[] = [];
  for (const [field, value] of Object.entries(after ?? {})) if (!deepEqual(value, before?.[field])) set[field] = value;
  for (const field of Object.keys(before ?? {})) if (after?.[field] === undefined) unset.push(field);
  return { set, unset };
}

export function timeOf(record: RecordedEvent): string {
  return record.metadata.occurredAt ?? record.created;
}

function parseOrder(orderBy: string | undefined): boolean {
  const text = (orderBy ?? '').trim().toLowerCase().replace(/\s+/g, ' ');
  if (text === '' || text === 'time' || text === 'time asc') return false;
  if (text === 'time desc') return true;
  throw invalid(`order_by must be 'time' or 'time desc', got '${(orderBy ?? '').slice(0, 64)}'`);
}

function pageSizeOf(size: number | undefined): number {
  if (size === undefined || size === 0) return DEFAULT_HISTORY_PAGE;
  if (size < 0) throw invalid(`page_size must not be negative, got ${size}`);
  return Math.min(size, MAX_HISTORY_PAGE);
}
