import type { DomainEvent } from '@svc/domain/shared/decider';
import type { RecordedEvent } from '../event-store/event-store.port';
import type { ListIndexes, WriteOp } from '../read-store/read-store.port';

/** A recorded event with its upcast domain payload. */
export interface ProjectedEvent {
  event: DomainEvent;
  record: RecordedEvent;
  /** Organization from the metadata. */
  org: string;
  /** Resource name from the stream id `<category>-<org>:<resource name>` (empty for aggregate streams). */
  resourceName: string;
  /** Commit position as a number (guards idempotency in the read store). */
  pos: number;
}

/**
 * A projection maps events to read-store operations; it does no I/O. applyPage (apply-page.ts)
 * batches the operations of many events into one commit together with the projection's checkpoint.
 */
export interface Projection {
  /** Also the checkpoint name. Bump `version` when the projected shape changes, then rebuild. */
  name: string;
  version: number;
  /** Logical collections this projection owns (and a rebuild replaces). */
  collections: string[];
  /** Paths queries filter or sort on, per collection. */
  indexes: Record<string, string[]>;
  /** Per collection, how its Lists read (ReadStore.ensureIndexes' `list`). */
  listIndexes?: Record<string, ListIndexes>;
  /** Per collection (one that `indexes` names), paths looked up across organizations (ReadStore.ensureIndexes' `crossOrg`). */
  crossOrgIndexes?: Record<string, string[]>;
  handle(event: ProjectedEvent): WriteOp[];
}

export function docId(org: string, name: string): string {
  return `${org}|${name}`;
}

/** `note-acme:notes/n1` gives `notes/n1`; an aggregate stream like `access-acme` gives ''. */
export function resourceNameOf(streamId: string): string {
  const colon = streamId.indexOf(':');
  return colon < 0 ? '' : streamId.slice(colon + 1);
}

/**
 * Stamp document in the `members` read model whose `_pos` moves with every change to an
 * organization's roles or memberships (written by the access projection, read by authentication).
 */
export const ACCESS_STAMP = '~access';
