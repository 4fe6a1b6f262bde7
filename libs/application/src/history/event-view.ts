/**
 * Events as the watch streams show them: which resource each is about, its wire form with no
 * secret, and the AIP-160 filter over type, resource, collection and actor that selects them.
 */
import type { Filter } from '@svc/infrastructure/read-store/read-store.port';
import { filterQuery } from '@svc/infrastructure/read-store/filter-query';
import { positionToString, type RecordedEvent } from '@svc/infrastructure/event-store/event-store.port';
import { compileFilter, type FilterSchema } from '@svc/infrastructure/query/filter';
import type { BusNotification } from '@svc/infrastructure/notifications/notification-bus.port';
import { namedRole } from './targets';

/** One event on a watch stream (lowerCamelCase). */
export interface WatchedEvent {
  position: string;
  /** The resource the event is about, and its collection (`notes/n1`, `notes`). */
  resource: string;
  collection: string;
  /** Revision of the event in its stream (a kit resource's, or the access aggregate's). */
  version: number;
  type: string;
  time: string;
  recordTime: string;
  actor: string;
  subject: string;
  requestId?: string;
  correlationId: string;
  data: Record<string, unknown>;
}

/**
 * Categories whose events no caller may read: API keys hold secret hashes and no method reads them.
 * (Connections are readable without their details; see `wireData`.)
 */
const HIDDEN_CATEGORIES = new Set(['apikey']);

/** The resource an event of `org` is about, or undefined for an event no watch shows. */
export function resourceOfEvent(record: RecordedEvent): string | undefined {
  const dash = record.streamId.indexOf('-');
  const category = record.streamId.slice(0, dash);
  if (HIDDEN_CATEGORIES.has(category)) return undefined;
  const colon = record.streamId.indexOf(':');
  if (colon > 0) return record.streamId.slice(colon + 1);
  const org = record.metadata.org;
  if (category === 'access') {
    const member = (record.data as { member?: unknown }).member;
    return namedRole(record) ?? (typeof member === 'string' ? member : undefined);
  }
  if (category === 'organization') return `organizations/${org}`;
  return undefined;
}

/** `services/s/dimensions/d` is in `dimensions`. */
export function collectionOf(name: string): string {
  const parts = name.split('/');
  return parts.length >= 2 ? parts[parts.length - 2] : parts[0];
}

/** An event's payload without what is sealed: a connection's details never leave the service. */
function wireData(record: RecordedEvent): Record<string, unknown> {
  const data = record.data as { connection?: Record<string, unknown> };
  if (record.type.startsWith('Connection') && data.connection) {
    const { connectionDetails: _sealed, ...connection } = data.connection;
    return { ...record.data, connection };
  }
  return record.data;
}

/** The watch form of an event, or undefined when no watch may show it. */
export function watchedEvent(record: RecordedEvent): WatchedEvent | undefined {
  const resource = resourceOfEvent(record);
  if (resource === undefined) return undefined;
  const m = record.metadata;
  return {
    position: positionToString(record.position),
    resource,
    collection: collectionOf(resource),
    version: Number(record.revision),
    type: record.type,
    time: m.occurredAt ?? record.created,
    recordTime: record.created,
    actor: m.actor,
    subject: m.subject,
    ...(m.requestId ? { requestId: m.requestId } : {}),
    correlationId: m.correlationId,
    data: wireData(record),
  };
}

/** The committed feed's derivation for watches: one notification per shown event, on its resource's topic. */
export function watchNotifications(record: RecordedEvent): BusNotification[] {
  const event = watchedEvent(record);
  return event ? [{ org: record.metadata.org, topic: event.resource, notification: event as unknown as Record<string, unknown> }] : [];
}

/** What a watch filter may name (AIP-160, snake_case as written). */
export const WATCH_FILTERS: FilterSchema = {
  type: { type: 'string', path: 'type' },
  resource: { type: 'string', path: 'resource' },
  collection: { type: 'string', path: 'collection' },
  actor: { type: 'string', path: 'actor' },
  subject: { type: 'string', path: 'subject' },
};

/** A compiled watch filter (INVALID_ARGUMENT naming the problem); blank matches every event. */
export function watchFilter(text: string | undefined): (event: WatchedEvent) => boolean {
  const compiled: Filter = compileFilter(text ?? '', WATCH_FILTERS);
  if (Object.keys(compiled).length === 0) return () => true;
  const query = filterQuery(compiled);
  return (event) => query.test(event as unknown as Record<string, unknown>);
}
