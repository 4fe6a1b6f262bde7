/**
 * A resource's history (every event of it, paged, with the fields each changed) and the resource as
 * of a past version or time, both read from its stream and folded with the aggregate's own fold.
 */
import { invalid, notFound } from '@svc/domain/shared/domain-error';
import { deepEqual } from '@svc/domain/shared/json-path';
import type { Resource } from '@svc/domain/shared/resource';
import { type EventStore, positionToString, type RecordedEvent } from '@svc/infrastructure/event-store/event-store.port';
import { decodePageToken, encodePageToken, queryFingerprint } from '@svc/infrastructure/query/page-token';
import type { HistoryTarget } from './targets';

/** One event of a resource as history shows it (lowerCamelCase, no secret). */
export interface HistoryEntry {
  /** The event's id as the watch streams show it (opaque to tenants: HistoryQuery.positionOf). */
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

/** How an entry shows its log position: the api passes the tenant-opaque event id; operators' tools the position itself. */
export type PositionOf = (record: RecordedEvent) => string;
const rawPosition: PositionOf = (record) => positionToString(record.position);

export interface HistoryPage {
  entries: HistoryEntry[];
  nextPageToken: string;
}

/** Events read from the stream at a time: the fold yields to other requests between chunks. */
export const HISTORY_CHUNK = 500;

/**
 * Every event of the target, oldest or newest first, one page of it. NOT_FOUND when it has none.
 * The stream is read in chunks, and only as far as the page needs: oldest first stops once the page
 * is full, newest first once it reaches the page token's version, keeping only the newest page of
 * what it passed (bounded memory whatever the stream's length).
 */
export async function readHistory(events: EventStore, target: HistoryTarget, query: HistoryQuery, positionOf: PositionOf = rawPosition): Promise<HistoryPage> {
  const descending = parseOrder(query.orderBy);
  const size = pageSizeOf(query.pageSize);
  const fingerprint = queryFingerprint({ orderBy: descending ? 'time desc' : 'time', extra: { history: target.name } });
  const after = decodePageToken(query.pageToken, fingerprint);
  if (after && typeof after.after[0] !== 'number') throw invalid('page_token is invalid');
  const from = after ? (after.after[0] as number) : undefined;
  const window: HistoryEntry[] = [];
  let seen = false;
  const fold = historyFold(target, positionOf);
  for await (const chunk of chunksOf(events, target, descending && from !== undefined ? from : undefined)) {
    let done = false;
    for (const entry of fold(chunk)) {
      seen = true;
      if (descending) {
        if (from !== undefined && entry.version >= from) continue;
        window.push(entry);
        // One more than the page tells whether an older page follows.
        if (window.length > 2 * (size + 1)) window.splice(0, window.length - (size + 1));
      } else if (from === undefined || entry.version > from) {
        window.push(entry);
        if (window.length > size) done = true;
      }
    }
    if (done) break;
  }
  if (!seen) throw notFound(`'${target.name}' not found`);
  const ordered = descending ? window.slice(-(size + 1)).reverse() : window;
  const entries = ordered.slice(0, size);
  const more = ordered.length > size;
  return { entries, nextPageToken: more ? encodePageToken({ q: fingerprint, after: [entries[entries.length - 1].version] }) : '' };
}

/**
 * The target's events (its stream, or its own source) in chunks of HISTORY_CHUNK, up to revision
 * `before` (exclusive) when given, yielding to the event loop between chunks so a long fold never
 * holds other requests for long.
 */
async function* chunksOf(events: EventStore, target: HistoryTarget, before?: number): AsyncGenerator<RecordedEvent[]> {
  let next = 0n;
  for (;;) {
    const maxCount = before === undefined ? HISTORY_CHUNK : Math.min(HISTORY_CHUNK, before - Number(next));
    if (maxCount <= 0) return;
    const chunk = target.read
      ? await target.read(events, next, maxCount, before)
      : await events.readStream(target.stream, { fromRevision: next, maxCount });
    if (chunk.length === 0) return;
    yield chunk;
    if (chunk.length < maxCount) return;
    next = chunk[chunk.length - 1].revision + 1n;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A fold over the target's events, chunk after chunk: each chunk's history entries with what they changed. */
function historyFold(target: HistoryTarget, positionOf: PositionOf): (records: readonly RecordedEvent[]) => HistoryEntry[] {
  const fold = target.folder();
  return (records) => {
    const entries: HistoryEntry[] = [];
    for (const record of records) {
      const before = fold.current();
      fold.step(record);
      if (!target.concerns(record)) continue;
      const change = target.change?.(record) ?? diff(before, fold.current());
      if (change === null) continue;
      entries.push(entryOf(record, change, positionOf));
    }
    return entries;
  };
}

/** The history entries of a whole stream, each with what it changed (one pass, one fold). */
export function historyOf(records: readonly RecordedEvent[], target: HistoryTarget, positionOf: PositionOf = rawPosition): HistoryEntry[] {
  return historyFold(target, positionOf)(records);
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
  // A version needs nothing past it; a time stops at the first event after it.
  scan: for await (const chunk of chunksOf(events, target, asOf.version !== undefined ? asOf.version + 1 : undefined)) {
    for (const record of chunk) {
      if (!until(record)) break scan;
      fold.step(record);
      if (target.concerns(record)) last = record;
    }
  }
  const resource = fold.current();
  const when = asOf.version !== undefined ? `version ${asOf.version}` : asOf.readTime;
  if (!resource || !last) throw notFound(`'${target.name}' did not exist at ${when}`);
  return { resource, version: Number(last.revision), time: timeOf(last) };
}

function entryOf(record: RecordedEvent, change: { set: Record<string, unknown>; unset: readonly string[] }, positionOf: PositionOf): HistoryEntry {
  const m = record.metadata;
  const changed = new Set([...Object.keys(change.set), ...change.unset].map((path) => path.split('.')[0]));
  return {
    position: positionOf(record),
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
