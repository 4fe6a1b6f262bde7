import type { DomainEvent } from '@svc/domain/shared/decider';
import type { RecordedEvent } from '../event-store/event-store.port';

/**
 * Stored events are never rewritten. When an event's payload changes shape, its schemaVersion is
 * bumped and an upcaster here lifts older versions to the current one on read.
 * Keyed by event type; each function takes (data, schemaVersion) and returns the current payload.
 */
type Upcaster = (data: Record<string, unknown>, schemaVersion: number) => Record<string, unknown>;

const upcasters: Record<string, Upcaster> = {};

export function upcast(record: Pick<RecordedEvent, 'type' | 'data' | 'metadata'>): DomainEvent {
  const lift = upcasters[record.type];
  const version = record.metadata?.schemaVersion ?? 1;
  return { type: record.type, data: lift ? lift(record.data, version) : record.data };
}
