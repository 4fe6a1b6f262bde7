import type { RecordedEvent } from '@svc/infrastructure/event-store/event-store.port';
import { showPosition } from '../context';

/** One event as the CLI shows it; the same shape in --json. */
export interface EventView {
  position: string;
  stream: string;
  revision: number;
  /** When the command happened (metadata.occurredAt); `recorded` is when the store wrote it. */
  time: string;
  recorded: string;
  type: string;
  org: string;
  actor: string;
  subject: string;
  requestId: string | null;
  correlationId: string;
  causationId: string;
  schemaVersion: number;
  data: Record<string, unknown>;
}

export function viewOf(record: RecordedEvent): EventView {
  const m = record.metadata;
  return {
    position: showPosition(record.position),
    stream: record.streamId,
    revision: Number(record.revision),
    time: m.occurredAt ?? record.created,
    recorded: record.created,
    type: record.type,
    org: m.org,
    actor: m.actor,
    subject: m.subject,
    requestId: m.requestId ?? null,
    correlationId: m.correlationId,
    causationId: m.causationId,
    schemaVersion: m.schemaVersion,
    data: record.data,
  };
}

/** Two lines per event: who did what when, then the payload. */
export function renderEvent(e: EventView, options: { stream: boolean }): string {
  const head = [
    `@${e.position}`,
    options.stream ? `${e.stream}#${e.revision}` : `#${e.revision}`,
    e.time,
    e.type,
    `actor=${e.actor}`,
    ...(e.subject !== e.actor ? [`subject=${e.subject}`] : []),
    ...(e.requestId ? [`request=${e.requestId}`] : []),
  ].join('  ');
  return `${head}\n    ${JSON.stringify(e.data)}`;
}
