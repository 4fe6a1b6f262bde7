import { DomainError } from '@svc/domain/shared/domain-error';

/**
 * The most one append may carry: EventStoreDB's `MaxAppendSize` default (1 MiB). The embedded store
 * enforces the same limit, so a change too large for production is refused in development too.
 */
export const MAX_APPEND_BYTES = 1_048_576;

/**
 * An event's size as EventStoreDB measures it (`Event.SizeOnDisk`): the bytes of its data and
 * metadata, plus its type at two bytes per UTF-16 code unit. `data` and `metadata` are the JSON text.
 */
export function eventSize(type: string, data: string, metadata: string): number {
  return Buffer.byteLength(data) + Buffer.byteLength(metadata) + 2 * type.length;
}

/** INVALID_ARGUMENT naming the limit, raised before anything is written. */
export function appendTooLarge(bytes: number | null, limit: number = MAX_APPEND_BYTES): DomainError {
  const size = bytes === null ? '' : ` (${bytes} bytes)`;
  return new DomainError(
    'INVALID_ARGUMENT',
    `the events of this change${size} exceed the ${limit}-byte limit of one append; make the change smaller`,
    'APPEND_TOO_LARGE',
    { limit: String(limit) },
  );
}

/** Throws appendTooLarge when the encoded events add up to more than the limit. */
export function checkAppendSize(events: ReadonlyArray<{ type: string; data: string; metadata: string }>): void {
  let total = 0;
  for (const e of events) total += eventSize(e.type, e.data, e.metadata);
  if (total > MAX_APPEND_BYTES) throw appendTooLarge(total);
}
