import { roleFilters, roleOrderBy } from '@svc/contracts/roles/roles.contract';
import { type AccessEvent, rolesConcerned } from '@svc/domain/roles/access.decider';
import { positionToString, type RecordedEvent } from '@svc/infrastructure/event-store/event-store.port';
import { ACCESS_STAMP, docId, type ProjectedEvent, type Projection } from '@svc/infrastructure/projection/projection';
import { indexedPaths } from '@svc/infrastructure/projection/resource.projection';
import type { WriteOp } from '@svc/infrastructure/read-store/read-store.port';

/** The role changelog: each access event that changed a role, once per role it changed (ROLE_CHANGES). */
export const ROLE_CHANGES = 'rolechanges';

/** A role changelog document: the recorded event itself, so history folds it as it would the stream's. */
export interface RoleChange {
  _id: string;
  _org: string;
  role: string;
  /** The event's revision in the access stream (the `version` of history and as-of reads). */
  revision: number;
  record: { id: string; streamId: string; type: string; data: Record<string, unknown>; metadata: RecordedEvent['metadata']; created: string; position: string };
}

/**
 * The access aggregate as three read models: `roles` (documents in the Role response shape),
 * `members` (each member's current role set) and `rolechanges`, a role's changelog, a view over
 * its events: a role's history and as-of reads page through it instead of reading the access stream,
 * whose events are mostly memberships (10,000 members, 10,000 events for a role with five). Every access event also
 * touches the organization's stamp document, so the api can tell with one point read whether any
 * role or membership changed since it computed a caller's permissions.
 */
export const accessProjection: Projection = {
  name: 'access',
  // 2: the role changelog (rebuild `access` to fill it for roles created before; until then a
  // role's history falls back to reading the stream, see history/targets.ts).
  version: 2,
  collections: ['roles', 'members', ROLE_CHANGES],
  indexes: { roles: indexedPaths(roleFilters, roleOrderBy), members: ['name'], [ROLE_CHANGES]: ['role', 'revision'] },
  handle(projected) {
    const ops = accessOps(projected);
    if (ops.length === 0) return ops;
    for (const role of rolesConcerned(projected.event as AccessEvent)) ops.push(roleChange(projected, role));
    const stamp: WriteOp = {
      op: 'update',
      collection: 'members',
      id: docId(projected.org, ACCESS_STAMP),
      pos: projected.pos,
      update: { $set: { name: ACCESS_STAMP, _org: projected.org } },
      upsert: true,
    };
    return [...ops, stamp];
  },
};

function roleChange({ record, org }: ProjectedEvent, role: string): WriteOp {
  const revision = Number(record.revision);
  const doc: RoleChange = {
    _id: docId(org, `${role}@${revision}`),
    _org: org,
    role,
    revision,
    record: {
      id: record.id,
      streamId: record.streamId,
      type: record.type,
      data: record.data,
      metadata: record.metadata,
      created: record.created,
      position: positionToString(record.position),
    },
  };
  return { op: 'insert', collection: ROLE_CHANGES, doc: { ...doc } };
}

function accessOps({ event, org, pos }: ProjectedEvent): WriteOp[] {
  const e = event as AccessEvent;
  const role = (name: string, update: Record<string, Record<string, unknown>>, upsert = false): WriteOp => ({
    op: 'update',
    collection: 'roles',
    id: docId(org, name),
    pos,
    update,
    upsert,
  });
  const member = (name: string, roles: string[], upsert = false): WriteOp => ({
    op: 'update',
    collection: 'members',
    id: docId(org, name),
    pos,
    update: { $set: { name, roles, _org: org } },
    upsert,
  });
  switch (e.type) {
    case 'AccessInitialized':
      return [role(e.data.admin.name, { $set: { ...e.data.admin, _org: org } }, true)];
    case 'RoleCreated':
      return [role(e.data.role.name, { $set: { ...e.data.role, _org: org } }, true)];
    case 'RoleUpdated':
      return [role(e.data.name, { $set: { ...e.data.set, updateTime: e.data.updateTime } })];
    case 'RoleDeleted':
      return [role(e.data.name, { $set: { deleteTime: e.data.deleteTime } })];
    case 'DefaultRoleSet': {
      const ops = [role(e.data.name, { $set: { isDefault: true, updateTime: e.data.updateTime } })];
      if (e.data.previous) ops.push(role(e.data.previous, { $set: { isDefault: false, updateTime: e.data.updateTime } }));
      return ops;
    }
    case 'MemberAdded':
      return [member(e.data.member, e.data.roles, true)];
    case 'RolesAssigned':
      return [member(e.data.member, e.data.roles, true)];
    default:
      return [];
  }
}
