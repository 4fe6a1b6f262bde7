/**
 * Where a resource's events live and how they fold into the resource, for history, as-of reads,
 * watches and the CLI's audit trail: the same stream names the write side appends to and the same
 * folds the aggregates and projections use, so a past state can never differ from what was served.
 */
import { connectionDecider, type ConnectionEvent, type ConnectionState } from '@svc/domain/connections/connection.decider';
import { type AccessEvent, type RoleRecord, roleAfter, rolesConcerned } from '@svc/domain/roles/access.decider';
import type { DomainEvent } from '@svc/domain/shared/decider';
import { resourceChange, resourceDecider } from '@svc/domain/shared/resource.decider';
import { namePattern, resourceStreamId, type Resource, type ResourceEvent, type ResourceSpec, type ResourceState } from '@svc/domain/shared/resource';
import { AREAS } from '../areas';
import { type EventStore, positionFromString, type RecordedEvent } from '@svc/infrastructure/event-store/event-store.port';
import { ROLE_CHANGES, type RoleChange } from '../areas/roles/access.projection';
import { docId } from '@svc/infrastructure/projection/projection';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';

/** One resource's events: its stream, which of the stream's events are its own, and their fold. */
export interface HistoryTarget {
  name: string;
  stream: string;
  /** Events of the stream that concern this resource (an aggregate stream holds many resources). */
  concerns(event: RecordedEvent): boolean;
  /** A fold of the stream's events (all of them, in order): the resource as it is after each, or null. */
  folder(): Folder;
  /** The fields an event changed, from the event's own patch where it has one (kit resources). */
  change?(event: RecordedEvent): { set: Record<string, unknown>; unset: readonly string[] } | null;
  /** Where the events come from when not the stream itself (a changelog read model): RecordSource. */
  read?: RecordSource;
}

/**
 * The target's events of revision `fromRevision` or later (and before `before`, when given), in
 * revision order, at most `maxCount`: a page of the stream, or of a changelog holding only some of
 * the stream's events (their revisions then have gaps).
 */
export type RecordSource = (events: EventStore, fromRevision: bigint, maxCount: number, before?: number) => Promise<RecordedEvent[]>;

export interface Folder {
  step(event: RecordedEvent): void;
  current(): Resource | null;
}

function folder<S>(initial: S, evolve: (state: S, event: RecordedEvent) => S, view: (state: S) => Resource | null): Folder {
  let state = initial;
  return {
    step: (event) => (state = evolve(state, event)),
    current: () => view(state),
  };
}

/** Names held in an organization's access stream (`access-<org>`). */
const ROLE = /^roles\/[^/]+$/;
const MEMBER = /^(users|service-accounts)\/[^/]+$/;
const CONNECTION = /^connections\/[^/]+$/;

/** Kit resources by name pattern, most specific (longest template) first, so a nested name finds its own kind. */
const KIT: ReadonlyArray<{ spec: ResourceSpec; pattern: RegExp }> = [
  ...new Map(AREAS.flatMap((a) => a.resources.map((r) => [r.spec.kind, r.spec] as const))).values(),
]
  .map((spec) => ({ spec, pattern: namePattern(spec) }))
  .sort((a, b) => b.pattern.source.length - a.pattern.source.length);

const asDomain = <E extends DomainEvent>(record: RecordedEvent): E => ({ type: record.type, data: record.data }) as unknown as E;

/**
 * The target a name denotes in `org`, or null when no stream can hold it (the caller answers NOT_FOUND).
 * With the read store, a role's events come from its changelog rather than the access stream.
 */
export function historyTarget(org: string, name: string, reads?: ReadStore): HistoryTarget | null {
  if (ROLE.test(name)) return roleTarget(org, name, reads);
  if (CONNECTION.test(name)) return connectionTarget(org, name);
  if (MEMBER.test(name)) return null;
  const kit = KIT.find((k) => k.pattern.test(name));
  return kit ? kitTarget(kit.spec, org, name) : null;
}

function kitTarget(spec: ResourceSpec, org: string, name: string): HistoryTarget {
  const decider = resourceDecider(spec);
  return {
    name,
    stream: resourceStreamId(spec, org, name),
    concerns: (event) => !spec.streamEvents?.includes(event.type),
    folder: () => folder<ResourceState>(decider.initialState(), (s, e) => decider.evolve(s, asDomain<ResourceEvent>(e)), (s) => s.resource),
    change: (event) => {
      const change = resourceChange(asDomain<ResourceEvent>(event));
      if (change === null) return null;
      return 'replace' in change ? { set: change.replace, unset: [] } : change;
    },
  };
}

/**
 * A role: the role's part of the access fold (roleAfter), over the events that changed it. With the
 * read store they are read from the role changelog (ROLE_CHANGES), so the cost is the role's own
 * events, not the organization's memberships; without it (the CLI), or for a role the changelog does
 * not hold yet (created before it existed, until `projections rebuild access`), from the stream.
 */
function roleTarget(org: string, name: string, reads?: ReadStore): HistoryTarget {
  const concerns = (event: RecordedEvent): boolean => rolesConcerned(asDomain<AccessEvent>(event)).includes(name);
  let fromChangelog: Promise<boolean> | undefined;
  return {
    name,
    stream: `access-${org}`,
    concerns,
    folder: () =>
      folder<RoleRecord | undefined>(
        undefined,
        (role, e) => (concerns(e) ? roleAfter(name, role, asDomain<AccessEvent>(e)) : role),
        (role) => (role ? ({ ...role } as Resource) : null),
      ),
    ...(reads && {
      read: async (events, fromRevision, maxCount, before) => {
        fromChangelog ??= changelogHolds(reads, org, name);
        if (!(await fromChangelog)) return events.readStream(`access-${org}`, { fromRevision, maxCount });
        const revision = before === undefined ? { $gte: Number(fromRevision) } : { $gte: Number(fromRevision), $lt: before };
        const docs = await reads.collection(ROLE_CHANGES).find({ _org: org, role: name, revision }, { sort: { revision: 1 }, limit: maxCount });
        return docs.map((doc) => recordOf(doc as unknown as RoleChange));
      },
    }),
  };
}

/** Whether the changelog is the role's whole history: it holds the role's events, or the role does not exist. */
async function changelogHolds(reads: ReadStore, org: string, name: string): Promise<boolean> {
  if (await reads.collection(ROLE_CHANGES).findOne({ _org: org, role: name })) return true;
  return (await reads.collection('roles').findOne({ _id: docId(org, name) })) === null;
}

function recordOf({ revision, record }: RoleChange): RecordedEvent {
  return { ...record, revision: BigInt(revision), position: positionFromString(record.position) };
}

/** The role an access event is about (its name, or the role it creates), if any. */
export function namedRole(event: Pick<RecordedEvent, 'type' | 'data'>): string | undefined {
  const data = event.data as { name?: unknown; role?: { name?: unknown }; admin?: { name?: unknown } };
  const name = data.role?.name ?? data.admin?.name ?? (event.type.startsWith('Role') || event.type === 'DefaultRoleSet' ? data.name : undefined);
  return typeof name === 'string' ? name : undefined;
}

/** A connection without its details: they hold sealed secrets, which never leave through history. */
function connectionTarget(org: string, name: string): HistoryTarget {
  return {
    name,
    stream: `connection-${org}:${name}`,
    concerns: () => true,
    folder: () =>
      folder<ConnectionState>(
        connectionDecider.initialState(),
        (s, e) => connectionDecider.evolve(s, asDomain<ConnectionEvent>(e)),
        (s) => {
          if (!s.connection) return null;
          const { connectionDetails: _sealed, ...shown } = s.connection;
          return shown as Resource;
        },
      ),
  };
}
