/**
 * Service revisions (spec part 3, "Revision"): a view of each service's own events. Every create,
 * update, delete and undelete is one revision, numbered by the event's place in the stream, with
 * the service as it was after the event, what kind of change it was, and who made it when.
 */
import type { ActorKind, RevisionOperation } from '@svc/contracts/catalog/catalog.contract';
import { snapshotOf, type Resource, type ResourceEvent } from '../shared/resource';

export interface ServiceRevision {
  name: string;
  /** n in `services/{s}/revisions/{n}`, kept as a number for filtering and ordering. */
  revisionNumber: number;
  snapshot: Resource;
  operation: RevisionOperation;
  actor: { subject: string; kind: ActorKind };
  createTime: string;
}

/** The operator configuration's subject (`operator-config`) and any other non-principal are the system. */
export function actorKindOf(subject: string): ActorKind {
  if (subject.startsWith('users/')) return 'ACTOR_KIND_USER';
  if (subject.startsWith('service-accounts/')) return 'ACTOR_KIND_SERVICE_ACCOUNT';
  if (subject.startsWith('agents/')) return 'ACTOR_KIND_AGENT';
  return 'ACTOR_KIND_SYSTEM';
}

/** Created, Deleted and Undeleted by suffix; any other event of the stream (a patch) is an update. */
export function revisionOperationOf(eventType: string): RevisionOperation {
  if (eventType.endsWith('Created')) return 'REVISION_OPERATION_CREATE';
  if (eventType.endsWith('Undeleted')) return 'REVISION_OPERATION_UNDELETE';
  if (eventType.endsWith('Deleted')) return 'REVISION_OPERATION_DELETE';
  return 'REVISION_OPERATION_UPDATE';
}

/**
 * The revision an event of `services/{s}` writes: n = stream revision + 1 (0-based revisions, 1-based
 * names). Null for an event that carries no snapshot (none should: the service spec has `snapshots`).
 */
export function serviceRevisionOf(
  serviceName: string,
  streamRevision: number,
  event: ResourceEvent,
  who: { subject: string; time: string },
): ServiceRevision | null {
  const snapshot = snapshotOf(event);
  if (!snapshot) return null;
  const n = streamRevision + 1;
  return {
    name: `${serviceName}/revisions/${n}`,
    revisionNumber: n,
    snapshot,
    operation: revisionOperationOf(event.type),
    actor: { subject: who.subject, kind: actorKindOf(who.subject) },
    createTime: who.time,
  };
}
