/**
 * The access aggregate of one organization: every role, the default role and every member's role set
 * live in one stream (`access-<org>`), so "no escalation" and "last admin" are checked atomically.
 */
import { PERMISSIONS, isPermission } from '@svc/contracts/roles/permissions';
import type { Actor, Decider, DomainEvent } from '../shared/decider';
import { alreadyExists, failedPrecondition, invalid, notFound, permissionDenied } from '../shared/domain-error';
import { isPresent, sortedUnique } from '../shared/json-path';
import { userSubjectProblem } from '../organizations/user-subject';
import type { UpdateScope } from '../shared/resource';

export const ADMIN_ROLE = 'roles/admin';
export const ROLE_ID = /^[a-zA-Z0-9][a-zA-Z0-9_-]*$/;
export const ROLE_ID_MAX = 63;
const USER = /^users\/[^/]+$/;
const MEMBER = /^(users|service-accounts)\/[^/]+$/;

/** A role in its response shape. */
export interface RoleRecord {
  name: string;
  displayName: string;
  description: string;
  /** Sorted, deduplicated permission keys. */
  permissions: string[];
  system: boolean;
  isDefault: boolean;
  createTime: string;
  updateTime: string;
  deleteTime?: string;
}

export interface AccessState {
  initialized: boolean;
  /** By name, `roles/{id}`, including soft-deleted roles (their names stay taken). */
  roles: Record<string, RoleRecord>;
  defaultRole: string | null;
  /** `users/{id}` or `service-accounts/{id}` to sorted role names (deleted roles stay in the set). */
  members: Record<string, string[]>;
  /**
   * How many users (not service accounts) hold the Admin role: the last-admin guardrail reads it
   * instead of scanning every member per command. Admin is a system role and cannot be deleted, so
   * only role-set changes move it.
   */
  adminUsers: number;
}

/** The client-settable part of a role. */
export type RoleInput = { displayName?: string | null; description?: string | null; permissions?: string[] | null };
type RoleField = 'displayName' | 'description' | 'permissions';
const ROLE_FIELDS: readonly RoleField[] = ['displayName', 'description', 'permissions'];
/** Role fields a mask may name but the client cannot change (UpdateRole ignores them). */
const SERVER_FIELDS = ['name', 'system', 'isDefault', 'createTime', 'updateTime', 'deleteTime'];

// Data as type literals (not interfaces), so they satisfy DomainEvent's Record<string, unknown>.
export type AccessInitialized = DomainEvent<'AccessInitialized', { admin: RoleRecord }>;
export type RoleCreated = DomainEvent<'RoleCreated', { role: RoleRecord }>;
export type RoleUpdated = DomainEvent<
  'RoleUpdated',
  { name: string; set: Partial<Pick<RoleRecord, RoleField>>; updateTime: string }
>;
export type RoleDeleted = DomainEvent<'RoleDeleted', { name: string; deleteTime: string }>;
export type DefaultRoleSet = DomainEvent<'DefaultRoleSet', { name: string; previous: string | null; updateTime: string }>;
export type MemberAdded = DomainEvent<'MemberAdded', { member: string; roles: string[] }>;
export type RolesAssigned = DomainEvent<'RolesAssigned', { member: string; roles: string[]; previous: string[] }>;
export type AccessEvent =
  | AccessInitialized
  | RoleCreated
  | RoleUpdated
  | RoleDeleted
  | DefaultRoleSet
  | MemberAdded
  | RolesAssigned;

export type InitializeAccess = { type: 'InitializeAccess'; actor: Actor };
export type CreateRole = { type: 'CreateRole'; actor: Actor; roleId: string; generated: boolean; role: RoleInput };
/** Paths are camelCase (snake_case accepted); `*` means all. */
export type UpdateRole = { type: 'UpdateRole'; actor: Actor; name: string; role: RoleInput; scope: UpdateScope };
export type DeleteRole = { type: 'DeleteRole'; actor: Actor; name: string };
export type SetDefaultRole = { type: 'SetDefaultRole'; actor: Actor; name: string };
export type AssignRoles = { type: 'AssignRoles'; actor: Actor; user: string; roles: string[] };
/** Operator configuration (SVC_CONFIG): trusted, so no escalation check. */
export type AddMember = { type: 'AddMember'; actor: Actor; member: string; roles: string[] };
/**
 * Operator configuration: the role is created once (nothing when its name is taken, even by a
 * deleted role, so the organization's later edits win) and, when `isDefault`, made the default role
 * in the same append, so new members never join between the two.
 */
export type DeclareRole = { type: 'DeclareRole'; actor: Actor; roleId: string; role: RoleInput; isDefault: boolean };
/**
 * A person the organization does not know yet, verified by a trusted identity provider (Bearer JWT),
 * joins holding the default role of this very state, so a concurrent SetDefaultRole cannot be missed.
 */
export type JoinOrganization = { type: 'JoinOrganization'; actor: Actor; user: string };
export type AccessCommand =
  | InitializeAccess
  | CreateRole
  | UpdateRole
  | DeleteRole
  | SetDefaultRole
  | AssignRoles
  | AddMember
  | DeclareRole
  | JoinOrganization;

/** Union of the permissions of the live roles held; a deleted role grants nothing. Sorted. */
export function effectivePermissions(
  memberRoles: readonly string[],
  roles: ReadonlyArray<{ name: string; permissions: readonly string[]; deleteTime?: string }>,
): string[] {
  const held = new Set(memberRoles);
  return sortedUnique(roles.filter((role) => held.has(role.name) && role.deleteTime === undefined).flatMap((role) => role.permissions));
}

/**
 * Effective permissions of one member of the organization (none for a non-member). Looks up only the
 * roles the member holds, so it costs the same in an organization of any size.
 */
export function memberPermissions(state: AccessState, member: string): string[] {
  if (!Object.hasOwn(state.members, member)) return [];
  const held: RoleRecord[] = [];
  for (const name of state.members[member]) {
    if (Object.hasOwn(state.roles, name)) held.push(state.roles[name]);
  }
  return effectivePermissions(state.members[member], held);
}

/** `users/...` members whose effective permissions include `permission`, sorted (ListUsersWithPermission). */
export function usersWithPermission(state: AccessState, permission: string): string[] {
  // The roles granting it, once; then one set lookup per role held, not a permission union per member.
  const granting = new Set(
    Object.values(state.roles)
      .filter((role) => role.deleteTime === undefined && role.permissions.includes(permission))
      .map((role) => role.name),
  );
  return Object.keys(state.members)
    .filter((member) => USER.test(member) && state.members[member].some((role) => granting.has(role)))
    .sort();
}

/** Whether `member` counts toward the last-admin guardrail with these roles. */
const countsAsAdmin = (member: string, roles: readonly string[]): boolean => USER.test(member) && roles.includes(ADMIN_ROLE);

function decide(input: AccessCommand, state: AccessState): AccessEvent[] {
  if (input.type === 'InitializeAccess') return initialize(input, state);
  if (!state.initialized) throw failedPrecondition('organization is not initialized');
  const command = { ...input, actor: asOfState(input.actor, state) } as Exclude<AccessCommand, InitializeAccess>;
  if (command.type !== 'AddMember' && command.type !== 'DeclareRole' && command.type !== 'JoinOrganization' && Object.hasOwn(state.members, command.actor.actor) && !command.actor.permissions.includes('ROLES_WRITE')) {
    throw permissionDenied(`${command.type} requires the ROLES_WRITE permission`);
  }
  switch (command.type) {
    case 'CreateRole':
      return createRole(command, state);
    case 'UpdateRole':
      return updateRole(command, state);
    case 'DeleteRole':
      return deleteRole(command, state);
    case 'SetDefaultRole':
      return setDefaultRole(command, state);
    case 'AssignRoles':
      return assignRoles(command, state);
    case 'AddMember':
      return addMember(command, state);
    case 'DeclareRole':
      return declareRole(command, state);
    case 'JoinOrganization':
      return joinOrganization(command, state);
    default:
      return assertNever(command);
  }
}

/**
 * A member's permissions are taken from this state, not from the moment the request was
 * authenticated: two concurrent requests are then judged on the same, current role sets, which
 * keeps "no escalation" and "last admin" atomic. Non-members (operator configuration) keep theirs.
 */
function asOfState(actor: Actor, state: AccessState): Actor {
  if (!Object.hasOwn(state.members, actor.actor)) return actor;
  return { ...actor, permissions: memberPermissions(state, actor.actor) };
}

function initialize({ actor }: InitializeAccess, state: AccessState): AccessEvent[] {
  if (state.initialized) return []; // idempotent: config apply runs at every startup
  const admin: RoleRecord = {
    name: ADMIN_ROLE,
    displayName: 'Admin',
    description: 'Every permission',
    permissions: sortedUnique(PERMISSIONS),
    system: true,
    isDefault: true,
    createTime: actor.now,
    updateTime: actor.now,
  };
  return [{ type: 'AccessInitialized', data: { admin } }];
}

function createRole({ actor, roleId, generated, role }: CreateRole, state: AccessState): AccessEvent[] {
  if (!generated && !ROLE_ID.test(roleId)) {
    throw invalid(`role_id '${roleId}' must start with a letter or digit and contain only letters, digits, hyphens and underscores`);
  }
  if (roleId.length > ROLE_ID_MAX) throw invalid(`role_id must be at most ${ROLE_ID_MAX} characters`);
  const name = `roles/${roleId}`;
  // A soft-deleted role keeps its name (wire convention 8), so it cannot be reused.
  if (Object.hasOwn(state.roles, name)) throw alreadyExists(`role '${name}' already exists`);
  const permissions = knownPermissions(role.permissions);
  assertHolds(actor, permissions, `cannot create role '${name}'`);
  const record: RoleRecord = {
    name,
    displayName: role.displayName ?? '',
    description: role.description ?? '',
    permissions,
    system: false,
    isDefault: false,
    createTime: actor.now,
    updateTime: actor.now,
  };
  return [{ type: 'RoleCreated', data: { role: record } }];
}

function updateRole({ actor, name, role: input, scope }: UpdateRole, state: AccessState): AccessEvent[] {
  const role = liveRole(state, name);
  if (role.system) throw failedPrecondition(`the ${role.displayName} role cannot be edited ('${name}' is a system role)`);
  const next: Pick<RoleRecord, RoleField> = { ...role };
  for (const field of fieldsInScope(scope, input)) {
    // In scope but not supplied: cleared (AIP-134), i.e. empty for these always-present fields.
    if (field === 'permissions') next.permissions = knownPermissions(input.permissions);
    else next[field] = input[field] ?? '';
  }
  // The role's resulting permissions are checked, not only the added ones: a caller may not edit a
  // role that grants more than it holds (spec: "editing a role ... whose permissions exceed the caller's").
  assertHolds(actor, next.permissions, `cannot update role '${name}'`);
  const set: Partial<Pick<RoleRecord, RoleField>> = {};
  if (next.displayName !== role.displayName) set.displayName = next.displayName;
  if (next.description !== role.description) set.description = next.description;
  if (next.permissions.join() !== role.permissions.join()) set.permissions = next.permissions;
  if (Object.keys(set).length === 0) return []; // no change: no event, updateTime stays
  return [{ type: 'RoleUpdated', data: { name, set, updateTime: actor.now } }];
}

function fieldsInScope(scope: UpdateScope, input: RoleInput): RoleField[] {
  if (scope === 'all') return [...ROLE_FIELDS];
  if (scope === 'all-provided') return ROLE_FIELDS.filter((field) => isPresent(input[field]));
  const paths = scope.paths.map((path) => path.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase()));
  if (paths.includes('*')) return [...ROLE_FIELDS];
  for (const path of paths) {
    if (!(ROLE_FIELDS as readonly string[]).includes(path) && !SERVER_FIELDS.includes(path)) {
      throw invalid(`update_mask path '${path}' is not a role field (display_name, description, permissions)`);
    }
  }
  return ROLE_FIELDS.filter((field) => paths.includes(field));
}

function deleteRole({ actor, name }: DeleteRole, state: AccessState): AccessEvent[] {
  const role = liveRole(state, name);
  if (role.system) throw failedPrecondition(`the ${role.displayName} role cannot be deleted ('${name}' is a system role)`);
  if (state.defaultRole === name) {
    throw failedPrecondition(`role '${name}' is the default role; make another role the default first`);
  }
  // Members keep the name in their set; effectivePermissions ignores deleted roles.
  return [{ type: 'RoleDeleted', data: { name, deleteTime: actor.now } }];
}

function setDefaultRole({ actor, name }: SetDefaultRole, state: AccessState): AccessEvent[] {
  const role = liveRole(state, name);
  assertHolds(actor, role.permissions, `cannot make role '${name}' the default`);
  if (state.defaultRole === name) return [];
  return [{ type: 'DefaultRoleSet', data: { name, previous: state.defaultRole, updateTime: actor.now } }];
}

function assignRoles({ actor, user, roles: refs }: AssignRoles, state: AccessState): AccessEvent[] {
  if (!USER.test(user)) throw invalid(`user must be users/{user}, got '${user}'`);
  if (!Object.hasOwn(state.members, user)) throw notFound(`member '${user}' not found`);
  const roles = roleNames(refs);
  for (const name of roles) liveRole(state, name);
  const previous = state.members[user];
  // Only roles being added can escalate; keeping or removing a role grants nothing new.
  for (const name of roles.filter((role) => !previous.includes(role))) {
    assertHolds(actor, state.roles[name].permissions, `cannot assign role '${name}' to '${user}'`);
  }
  if (previous.includes(ADMIN_ROLE) && !roles.includes(ADMIN_ROLE) && !otherUserHoldsAdmin(state, user)) {
    throw failedPrecondition(`at least one member must keep the Admin role; ${user} is the last member holding Admin`);
  }
  if (roles.join() === previous.join()) return [];
  return [{ type: 'RolesAssigned', data: { member: user, roles, previous } }];
}

/**
 * Only users count toward the last-admin guardrail: a service account's key is a deployment credential,
 * not a person who can administer the organization, so it cannot be the last Admin.
 */
function otherUserHoldsAdmin(state: AccessState, user: string): boolean {
  const own = Object.hasOwn(state.members, user) && countsAsAdmin(user, state.members[user]) ? 1 : 0;
  return state.adminUsers - own > 0;
}

function addMember({ member, roles: refs }: AddMember, state: AccessState): AccessEvent[] {
  if (!MEMBER.test(member)) throw invalid(`member must be users/{user} or service-accounts/{id}, got '${member}'`);
  // The file's roles apply only when the member is first added; later AssignRoles wins.
  if (Object.hasOwn(state.members, member)) return [];
  const roles = roleNames(refs);
  for (const name of roles) {
    const role = Object.hasOwn(state.roles, name) ? state.roles[name] : undefined;
    if (role === undefined || role.deleteTime !== undefined) {
      throw invalid(`unknown role '${name}' in the configuration of member '${member}'`);
    }
  }
  return [{ type: 'MemberAdded', data: { member, roles } }];
}

function declareRole({ actor, roleId, role, isDefault }: DeclareRole, state: AccessState): AccessEvent[] {
  if (Object.hasOwn(state.roles, `roles/${roleId}`)) return [];
  const [created] = createRole({ type: 'CreateRole', actor, roleId, generated: false, role }, state);
  if (!isDefault) return [created];
  return [created, { type: 'DefaultRoleSet', data: { name: `roles/${roleId}`, previous: state.defaultRole, updateTime: actor.now } }];
}

function joinOrganization({ user }: JoinOrganization, state: AccessState): AccessEvent[] {
  if (!USER.test(user)) throw invalid(`user must be users/{user}, got '${user}'`);
  // The identity adapters check the subject first; this keeps `users/*` out whatever the caller.
  const problem = userSubjectProblem(user.slice('users/'.length));
  if (problem !== null) throw invalid(`user ID ${problem}`);
  // Idempotent: concurrent first requests of one person add them once.
  if (Object.hasOwn(state.members, user)) return [];
  return [{ type: 'MemberAdded', data: { member: user, roles: state.defaultRole === null ? [] : [state.defaultRole] } }];
}

/** Accepts `roles/{id}` or a bare `{id}`; returns sorted, deduplicated names. */
function roleNames(refs: readonly string[]): string[] {
  return sortedUnique(
    refs.map((ref) => {
      const id = ref.startsWith('roles/') ? ref.slice('roles/'.length) : ref;
      if (!ROLE_ID.test(id)) throw invalid(`'${ref}' is not a role name (roles/{role_id}) or role ID`);
      return `roles/${id}`;
    }),
  );
}

function liveRole(state: AccessState, name: string): RoleRecord {
  if (!name.startsWith('roles/')) throw invalid(`role name must be roles/{role_id}, got '${name}'`);
  const role = Object.hasOwn(state.roles, name) ? state.roles[name] : undefined;
  if (role === undefined || role.deleteTime !== undefined) throw notFound(`role '${name}' not found`);
  return role;
}

function knownPermissions(value: unknown): string[] {
  if (!isPresent(value)) return [];
  if (!Array.isArray(value) || !value.every((key): key is string => typeof key === 'string')) {
    throw invalid('permissions must be a list of permission keys');
  }
  const unknown = sortedUnique(value.filter((key) => !isPermission(key)));
  if (unknown.length > 0) {
    throw invalid(`unknown permission ${unknown.map((key) => `'${key}'`).join(', ')}; known: ${PERMISSIONS.join(', ')}`);
  }
  return sortedUnique(value);
}

/** No escalation: a caller may only grant permission keys it holds itself. */
function assertHolds(actor: Actor, permissions: readonly string[], what: string): void {
  const missing = permissions.filter((key) => !actor.permissions.includes(key));
  if (missing.length > 0) throw permissionDenied(`${what}: it grants permissions you do not hold: ${missing.join(', ')}`);
}

/**
 * Updates the state in place (decider.ts, the fold contract): one event costs the same whatever the
 * number of members and roles. Role records are replaced, never edited, so a record read before an
 * event (a role's history) keeps its values; role sets are the events' own arrays, never edited.
 */
function evolve(state: AccessState, event: AccessEvent): AccessState {
  switch (event.type) {
    case 'AccessInitialized':
    case 'RoleCreated':
    case 'RoleUpdated':
    case 'RoleDeleted':
    case 'DefaultRoleSet':
      for (const name of rolesConcerned(event)) {
        const role = Object.hasOwn(state.roles, name) ? state.roles[name] : undefined;
        state.roles[name] = roleAfter(name, role, event);
      }
      if (event.type === 'AccessInitialized') {
        state.initialized = true;
        state.defaultRole = event.data.admin.name;
      }
      if (event.type === 'DefaultRoleSet') state.defaultRole = event.data.name;
      return state;
    case 'MemberAdded':
    case 'RolesAssigned': {
      const { member, roles } = event.data;
      const before = Object.hasOwn(state.members, member) ? state.members[member] : [];
      state.adminUsers += Number(countsAsAdmin(member, roles)) - Number(countsAsAdmin(member, before));
      state.members[member] = roles;
      return state;
    }
    default:
      return assertNever(event);
  }
}

/** The roles an access event changes (none for membership events). */
export function rolesConcerned(event: AccessEvent): string[] {
  switch (event.type) {
    case 'AccessInitialized':
      return [event.data.admin.name];
    case 'RoleCreated':
      return [event.data.role.name];
    case 'RoleUpdated':
    case 'RoleDeleted':
      return [event.data.name];
    case 'DefaultRoleSet':
      return event.data.previous === null ? [event.data.name] : [event.data.previous, event.data.name];
    default:
      return [];
  }
}

/**
 * One role's record after an event that concerns it (rolesConcerned): the role part of the fold, on
 * its own so that a role's history folds only the role's events. A new record every time, never an
 * edit, so a record read before the event keeps its values.
 */
export function roleAfter(name: string, role: RoleRecord | undefined, event: AccessEvent): RoleRecord {
  if (event.type === 'AccessInitialized') return event.data.admin;
  if (event.type === 'RoleCreated') return event.data.role;
  if (role === undefined) throw new Error(`event refers to unknown role ${name}`); // corrupt stream
  switch (event.type) {
    case 'RoleUpdated':
      return { ...role, ...event.data.set, updateTime: event.data.updateTime };
    case 'RoleDeleted':
      return { ...role, deleteTime: event.data.deleteTime };
    case 'DefaultRoleSet':
      return { ...role, isDefault: name === event.data.name, updateTime: event.data.updateTime };
    default:
      return role;
  }
}

function assertNever(value: never): never {
  throw new Error(`unhandled ${JSON.stringify(value)}`);
}

export const accessDecider: Decider<AccessState, AccessCommand, AccessEvent> = {
  initialState: () => ({ initialized: false, roles: {}, defaultRole: null, members: {}, adminUsers: 0 }),
  evolve,
  decide,
  // Plain JSON. Bump when evolve or the state's shape changes: older snapshots are then ignored.
  snapshot: { fold: 'access:1' },
};
