import { roleFilters, roleOrderBy } from '@svc/contracts/roles/roles.contract';
import type { AccessEvent } from '@svc/domain/roles/access.decider';
import { ACCESS_STAMP, docId, type ProjectedEvent, type Projection } from '../../projection/projection';
import { indexedPaths } from '../../projection/resource.projection';
import type { WriteOp } from '../../read-store/read-store.port';

/**
 * The access aggregate as two read models: `roles` (documents in the Role response shape) and
 * `members` (each member's current role set). Every access event also touches the organization's
 * stamp document, so the api can tell with one point read whether any role or membership changed
 * since it computed a caller's permissions.
 */
export const accessProjection: Projection = {
  name: 'access',
  version: 1,
  collections: ['roles', 'members'],
  indexes: { roles: indexedPaths(roleFilters, roleOrderBy), members: ['name'] },
  handle(projected) {
    const ops = accessOps(projected);
    if (ops.length === 0) return ops;
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
