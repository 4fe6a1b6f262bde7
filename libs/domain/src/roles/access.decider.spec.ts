import { PERMISSIONS } from '../../../contracts/src/roles/permissions';
import type { Actor } from '../shared/decider';
import { fold } from '../shared/decider';
import { givenFor } from '../shared/testing';
import {
  accessDecider,
  effectivePermissions,
  memberPermissions,
  usersWithPermission,
  type AccessCommand,
  type AccessEvent,
  type RoleInput,
  type RoleRecord,
} from './access.decider';
import type { UpdateScope } from '../shared/resource';

const given = givenFor(accessDecider);

const T0 = '2024-01-01T00:00:00Z';
const T1 = '2024-01-02T00:00:00Z';
const T2 = '2024-01-03T00:00:00Z';

/** An actor holding `permissions` (every key by default), acting at `now`. */
const as = (who: string, permissions: readonly string[] = PERMISSIONS, now = T2): Actor => ({
  org: 'acme',
  actor: who,
  subject: who,
  permissions,
  now,
});
const alice = as('users/alice');
/** Can manage roles and grant knowledge, nothing else. */
const limited = as('users/carol', ['ROLES_WRITE', 'KNOWLEDGE_WRITE']);

// Commands
const initializeAccess = (actor = as('service-accounts/config', [], T0)): AccessCommand => ({ type: 'InitializeAccess', actor });
const createRole = (roleId: string, role: RoleInput, actor = alice, generated = false): AccessCommand => ({
  type: 'CreateRole',
  actor,
  roleId,
  generated,
  role,
});
const updateRole = (name: string, role: RoleInput, scope: UpdateScope, actor = alice): AccessCommand => ({
  type: 'UpdateRole',
  actor,
  name,
  role,
  scope,
});
const deleteRole = (name: string, actor = alice): AccessCommand => ({ type: 'DeleteRole', actor, name });
const setDefaultRole = (name: string, actor = alice): AccessCommand => ({ type: 'SetDefaultRole', actor, name });
const assignRoles = (user: string, roles: string[], actor = alice): AccessCommand => ({ type: 'AssignRoles', actor, user, roles });
const addMember = (member: string, roles: string[], actor = as('service-accounts/config', [])): AccessCommand => ({
  type: 'AddMember',
  actor,
  member,
  roles,
});

// Events
const admin: RoleRecord = {
  name: 'roles/admin',
  displayName: 'Admin',
  description: 'Every permission',
  permissions: [...PERMISSIONS].sort(),
  system: true,
  isDefault: true,
  createTime: T0,
  updateTime: T0,
};
const initialized: AccessEvent = { type: 'AccessInitialized', data: { admin } };
const role = (id: string, permissions: string[], extra: Partial<RoleRecord> = {}): RoleRecord => ({
  name: `roles/${id}`,
  displayName: id,
  description: '',
  permissions,
  system: false,
  isDefault: false,
  createTime: T1,
  updateTime: T1,
  ...extra,
});
const roleCreated = (record: RoleRecord): AccessEvent => ({ type: 'RoleCreated', data: { role: record } });
const roleDeleted = (name: string, deleteTime = T1): AccessEvent => ({ type: 'RoleDeleted', data: { name, deleteTime } });
const defaultRoleSet = (name: string, previous: string | null, updateTime = T1): AccessEvent => ({
  type: 'DefaultRoleSet',
  data: { name, previous, updateTime },
});
const memberAdded = (member: string, roles: string[]): AccessEvent => ({ type: 'MemberAdded', data: { member, roles } });
const rolesAssigned = (member: string, roles: string[], previous: string[]): AccessEvent => ({
  type: 'RolesAssigned',
  data: { member, roles, previous },
});

const ops = role('ops', ['AGENTS_WRITE', 'KNOWLEDGE_WRITE']);
const writer = role('writer', ['KNOWLEDGE_WRITE']);
const viewer = role('viewer', []);
/** alice: Admin; bob: writer; deployer (service account): Admin. */
const org: AccessEvent[] = [
  initialized,
  roleCreated(ops),
  roleCreated(writer),
  roleCreated(viewer),
  memberAdded('users/alice', ['roles/admin']),
  memberAdded('users/bob', ['roles/writer']),
  memberAdded('service-accounts/deployer', ['roles/admin']),
];

describe('InitializeAccess', () => {
  it('seeds roles/admin with every permission as the default role', () => {
    given()
      .when(initializeAccess())
      .thenState((state, events) => {
        expect(events).toEqual([initialized]);
        expect(state).toEqual({ initialized: true, roles: { 'roles/admin': admin }, defaultRole: 'roles/admin', members: {}, adminUsers: 0 });
      });
  });

  it('does nothing when already initialized', () => {
    given([initialized]).when(initializeAccess()).thenNothing();
  });

  it.each<[string, AccessCommand]>([
    ['CreateRole', createRole('ops', {})],
    ['UpdateRole', updateRole('roles/ops', {}, 'all')],
    ['DeleteRole', deleteRole('roles/ops')],
    ['SetDefaultRole', setDefaultRole('roles/admin')],
    ['AssignRoles', assignRoles('users/alice', [])],
    ['AddMember', addMember('users/alice', ['admin'])],
  ])('%s on an uninitialized organization fails', (_name, command) => {
    given().when(command).thenFails('FAILED_PRECONDITION', 'organization is not initialized');
  });
});

describe('CreateRole', () => {
  it('creates a role with sorted, deduplicated permissions', () => {
    given([initialized])
      .when(createRole('sre', { displayName: 'SRE', permissions: ['KNOWLEDGE_WRITE', 'AGENTS_WRITE', 'KNOWLEDGE_WRITE'] }))
      .then([
        roleCreated(
          role('sre', ['AGENTS_WRITE', 'KNOWLEDGE_WRITE'], { displayName: 'SRE', createTime: T2, updateTime: T2 }),
        ),
      ]);
  });

  it('defaults absent fields to empty', () => {
    given([initialized])
      .when(createRole('empty', {}, limited))
      .then([roleCreated(role('empty', [], { displayName: '', createTime: T2, updateTime: T2 }))]);
  });

  it('checks a client-chosen role_id against the pattern', () => {
    given([initialized]).when(createRole('-ops', {})).thenFails('INVALID_ARGUMENT', /role_id '-ops' must start with a letter or digit/);
    given([initialized]).when(createRole('a.b', {})).thenFails('INVALID_ARGUMENT');
    given([initialized]).when(createRole('', {})).thenFails('INVALID_ARGUMENT');
  });

  it('skips the pattern for a generated ID', () => {
    given([initialized])
      .when(createRole('_generated', {}, alice, true))
      .then([roleCreated(role('_generated', [], { displayName: '', createTime: T2, updateTime: T2 }))]);
  });

  it('limits role_id to 63 characters', () => {
    given([initialized]).when(createRole('a'.repeat(64), {})).thenFails('INVALID_ARGUMENT', /at most 63 characters/);
    given([initialized]).when(createRole('a'.repeat(63), {})).then([roleCreated(role('a'.repeat(63), [], { displayName: '', createTime: T2, updateTime: T2 }))]);
  });

  it('rejects an existing name, live or deleted', () => {
    given(org).when(createRole('ops', {})).thenFails('ALREADY_EXISTS', "role 'roles/ops' already exists");
    given(org).when(createRole('admin', {})).thenFails('ALREADY_EXISTS');
    given([...org, roleDeleted('roles/viewer')]).when(createRole('viewer', {})).thenFails('ALREADY_EXISTS');
  });

  it('rejects unknown permission keys, naming them', () => {
    given([initialized]).when(createRole('x', { permissions: ['AGENTS_WRITE', 'FLY'] })).thenFails('INVALID_ARGUMENT', /unknown permission 'FLY'/);
  });

  it('does not let a caller grant a permission it lacks (no escalation)', () => {
    given([initialized])
      .when(createRole('x', { permissions: ['KNOWLEDGE_WRITE', 'AGENTS_WRITE', 'BILLING_WRITE'] }, limited))
      .thenFails('PERMISSION_DENIED', /cannot create role 'roles\/x'.*you do not hold: AGENTS_WRITE, BILLING_WRITE$/);
  });
});

describe('UpdateRole', () => {
  it('is NOT_FOUND for an unknown or deleted role', () => {
    given(org).when(updateRole('roles/nope', { displayName: 'x' }, 'all-provided')).thenFails('NOT_FOUND', "role 'roles/nope' not found");
    given([...org, roleDeleted('roles/viewer')]).when(updateRole('roles/viewer', { displayName: 'x' }, 'all-provided')).thenFails('NOT_FOUND');
  });

  it('rejects a name that is not roles/{id}', () => {
    given(org).when(updateRole('ops', { displayName: 'x' }, 'all-provided')).thenFails('INVALID_ARGUMENT', /roles\/\{role_id\}/);
  });

  it('refuses to edit the Admin role', () => {
    given(org).when(updateRole('roles/admin', { displayName: 'Boss' }, 'all-provided')).thenFails('FAILED_PRECONDITION', /the Admin role cannot be edited/);
  });

  it("'all-provided' changes the supplied fields; the event holds only what changed", () => {
    given(org)
      .when(updateRole('roles/ops', { displayName: 'Operations', description: '', permissions: ['KNOWLEDGE_WRITE', 'AGENTS_WRITE'] }, 'all-provided'))
      .thenState((state, events) => {
        expect(events).toEqual([{ type: 'RoleUpdated', data: { name: 'roles/ops', set: { displayName: 'Operations' }, updateTime: T2 } }]);
        expect(state.roles['roles/ops']).toEqual({ ...ops, displayName: 'Operations', updateTime: T2 });
      });
  });

  it("'all' clears the fields left out", () => {
    given(org)
      .when(updateRole('roles/ops', { description: 'runs things' }, 'all'))
      .then([
        {
          type: 'RoleUpdated',
          data: { name: 'roles/ops', set: { displayName: '', description: 'runs things', permissions: [] }, updateTime: T2 },
        },
      ]);
  });

  it('a mask touches only its paths (snake_case accepted), ignores server fields, and clears listed absent ones', () => {
    given(org)
      .when(updateRole('roles/ops', { displayName: 'Ops', permissions: ['AGENTS_WRITE'] }, { paths: ['display_name', 'description', 'is_default', 'system'] }))
      .then([{ type: 'RoleUpdated', data: { name: 'roles/ops', set: { displayName: 'Ops' }, updateTime: T2 } }]);
    given(org)
      .when(updateRole('roles/ops', { permissions: ['AGENTS_WRITE'] }, { paths: ['*'] }))
      .then([{ type: 'RoleUpdated', data: { name: 'roles/ops', set: { displayName: '', permissions: ['AGENTS_WRITE'] }, updateTime: T2 } }]);
  });

  it('rejects a mask path that is not a role field', () => {
    given(org).when(updateRole('roles/ops', {}, { paths: ['color'] })).thenFails('INVALID_ARGUMENT', /'color' is not a role field/);
  });

  it('rejects unknown permission keys', () => {
    given(org).when(updateRole('roles/ops', { permissions: ['NOPE'] }, 'all-provided')).thenFails('INVALID_ARGUMENT', /'NOPE'/);
  });

  it('does not let a caller add a permission it lacks', () => {
    given(org)
      .when(updateRole('roles/writer', { permissions: ['KNOWLEDGE_WRITE', 'BILLING_WRITE'] }, 'all-provided', limited))
      .thenFails('PERMISSION_DENIED', /cannot update role 'roles\/writer'.*BILLING_WRITE/);
  });

  it('does not let a caller edit a role that grants more than it holds', () => {
    given(org).when(updateRole('roles/ops', { displayName: 'Mine' }, 'all-provided', limited)).thenFails('PERMISSION_DENIED', /AGENTS_WRITE/);
  });

  it('lets a caller remove permissions down to what it holds', () => {
    given(org)
      .when(updateRole('roles/ops', { permissions: ['KNOWLEDGE_WRITE'] }, { paths: ['permissions'] }, limited))
      .then([{ type: 'RoleUpdated', data: { name: 'roles/ops', set: { permissions: ['KNOWLEDGE_WRITE'] }, updateTime: T2 } }]);
  });

  it('emits nothing when nothing changes (permission order and duplicates do not matter)', () => {
    given(org)
      .when(updateRole('roles/ops', { displayName: 'ops', permissions: ['KNOWLEDGE_WRITE', 'AGENTS_WRITE', 'AGENTS_WRITE'] }, 'all-provided'))
      .thenNothing();
  });
});

describe('DeleteRole', () => {
  it('soft-deletes; holders keep the name but lose its permissions', () => {
    given(org)
      .when(deleteRole('roles/writer'))
      .thenState((state, events) => {
        expect(events).toEqual([roleDeleted('roles/writer', T2)]);
        expect(state.roles['roles/writer'].deleteTime).toBe(T2);
        expect(state.members['users/bob']).toEqual(['roles/writer']);
        expect(memberPermissions(state, 'users/bob')).toEqual([]);
      });
  });

  it('is NOT_FOUND for an unknown or already deleted role', () => {
    given(org).when(deleteRole('roles/nope')).thenFails('NOT_FOUND', /roles\/nope/);
    given([...org, roleDeleted('roles/viewer')]).when(deleteRole('roles/viewer')).thenFails('NOT_FOUND');
  });

  it('refuses to delete the Admin role', () => {
    given(org).when(deleteRole('roles/admin')).thenFails('FAILED_PRECONDITION', /the Admin role cannot be deleted/);
  });

  it('refuses to delete the default role', () => {
    given([...org, defaultRoleSet('roles/viewer', 'roles/admin')])
      .when(deleteRole('roles/viewer'))
      .thenFails('FAILED_PRECONDITION', "role 'roles/viewer' is the default role; make another role the default first");
  });
});

describe('SetDefaultRole', () => {
  it('moves the default flag atomically', () => {
    given(org)
      .when(setDefaultRole('roles/writer', limited))
      .thenState((state, events) => {
        expect(events).toEqual([defaultRoleSet('roles/writer', 'roles/admin', T2)]);
        expect(state.defaultRole).toBe('roles/writer');
        expect(state.roles['roles/admin']).toEqual({ ...admin, isDefault: false, updateTime: T2 });
        expect(state.roles['roles/writer']).toEqual({ ...writer, isDefault: true, updateTime: T2 });
        expect(Object.values(state.roles).filter((r) => r.isDefault)).toHaveLength(1);
      });
  });

  it('does not let a caller make a role it could not grant the default', () => {
    given(org).when(setDefaultRole('roles/ops', limited)).thenFails('PERMISSION_DENIED', /cannot make role 'roles\/ops' the default.*AGENTS_WRITE/);
  });

  it('does nothing when the role is already the default', () => {
    given(org).when(setDefaultRole('roles/admin')).thenNothing();
  });

  it('is NOT_FOUND for an unknown or deleted role', () => {
    given(org).when(setDefaultRole('roles/nope')).thenFails('NOT_FOUND');
    given([...org, roleDeleted('roles/viewer')]).when(setDefaultRole('roles/viewer')).thenFails('NOT_FOUND', /roles\/viewer/);
  });
});

describe('AssignRoles', () => {
  it('replaces the whole set, normalizing names, deduplicating and sorting', () => {
    given(org)
      .when(assignRoles('users/bob', ['viewer', 'roles/ops', 'ops']))
      .thenState((state, events) => {
        expect(events).toEqual([rolesAssigned('users/bob', ['roles/ops', 'roles/viewer'], ['roles/writer'])]);
        expect(state.members['users/bob']).toEqual(['roles/ops', 'roles/viewer']);
      });
  });

  it('is order-free: the same set in another order changes nothing', () => {
    given([...org, rolesAssigned('users/bob', ['roles/viewer', 'roles/writer'], ['roles/writer'])])
      .when(assignRoles('users/bob', ['writer', 'roles/viewer', 'writer']))
      .thenNothing();
  });

  it('allows an empty set for a member who is not the last Admin', () => {
    given(org).when(assignRoles('users/bob', [])).then([rolesAssigned('users/bob', [], ['roles/writer'])]);
  });

  it('requires users/{user}', () => {
    given(org).when(assignRoles('service-accounts/deployer', [])).thenFails('INVALID_ARGUMENT', /users\/\{user\}/);
    given(org).when(assignRoles('bob', [])).thenFails('INVALID_ARGUMENT');
  });

  it('requires an existing member', () => {
    given(org).when(assignRoles('users/zoe', [])).thenFails('NOT_FOUND', "member 'users/zoe' not found");
  });

  it('requires every role to exist and be live, naming the missing one', () => {
    given(org).when(assignRoles('users/bob', ['writer', 'ghost'])).thenFails('NOT_FOUND', "role 'roles/ghost' not found");
    given([...org, roleDeleted('roles/viewer')]).when(assignRoles('users/bob', ['viewer'])).thenFails('NOT_FOUND', /roles\/viewer/);
    given(org).when(assignRoles('users/bob', ['a/b'])).thenFails('INVALID_ARGUMENT', /'a\/b' is not a role name/);
  });

  it('does not let a caller assign a role that grants more than it holds (no escalation)', () => {
    given(org).when(assignRoles('users/bob', ['writer', 'ops'], limited)).thenFails('PERMISSION_DENIED', /cannot assign role 'roles\/ops' to 'users\/bob'.*AGENTS_WRITE/);
    given(org).when(assignRoles('users/bob', ['admin'], limited)).thenFails('PERMISSION_DENIED', /roles\/admin/);
  });

  it('checks only added roles: keeping or removing a role the caller could not grant is allowed', () => {
    given([...org, rolesAssigned('users/bob', ['roles/ops', 'roles/writer'], ['roles/writer'])])
      .when(assignRoles('users/bob', ['ops', 'viewer'], limited))
      .then([rolesAssigned('users/bob', ['roles/ops', 'roles/viewer'], ['roles/ops', 'roles/writer'])]);
  });

  it('keeps at least one user holding Admin', () => {
    given(org)
      .when(assignRoles('users/alice', ['writer']))
      .thenFails('FAILED_PRECONDITION', 'at least one member must keep the Admin role; users/alice is the last member holding Admin');
  });

  it('does not count service accounts as the remaining Admin', () => {
    // deployer (a service account) holds Admin in `org`, and alice still cannot drop it
    given(org).when(assignRoles('users/alice', [])).thenFails('FAILED_PRECONDITION', /users\/alice is the last member holding Admin/);
  });

  it('counts Admin holders across grants and step-downs (the counter follows every role-set change)', () => {
    const history = [
      ...org,
      rolesAssigned('users/bob', ['roles/admin'], ['roles/writer']),
      rolesAssigned('users/alice', [], ['roles/admin']),
      memberAdded('users/erin', ['roles/admin', 'roles/viewer']),
      rolesAssigned('users/erin', ['roles/viewer'], ['roles/admin', 'roles/viewer']),
    ];
    expect(fold(accessDecider, history).adminUsers).toBe(1);
    given(history).when(assignRoles('users/bob', [], as('users/bob'))).thenFails('FAILED_PRECONDITION', /users\/bob is the last member holding Admin/);
    given([...history, rolesAssigned('users/alice', ['roles/admin'], [])])
      .when(assignRoles('users/bob', []))
      .then([rolesAssigned('users/bob', [], ['roles/admin'])]);
  });

  it('lets an Admin step down while another user holds Admin', () => {
    given([...org, rolesAssigned('users/bob', ['roles/admin'], ['roles/writer'])])
      .when(assignRoles('users/alice', []))
      .then([rolesAssigned('users/alice', [], ['roles/admin'])]);
  });
});

describe('AddMember (operator configuration)', () => {
  it('adds a member with normalized roles, without an escalation check', () => {
    given([initialized])
      .when(addMember('users/alice', ['admin', 'roles/admin']))
      .then([memberAdded('users/alice', ['roles/admin'])]);
    given([initialized]).when(addMember('service-accounts/deployer', [])).then([memberAdded('service-accounts/deployer', [])]);
  });

  it('leaves an existing member alone: later AssignRoles wins over the file', () => {
    given([...org, rolesAssigned('users/bob', ['roles/viewer'], ['roles/writer'])]).when(addMember('users/bob', ['writer'])).thenNothing();
  });

  it('rejects an unknown or deleted role in the configuration', () => {
    given([initialized]).when(addMember('users/alice', ['owner'])).thenFails('INVALID_ARGUMENT', /unknown role 'roles\/owner'.*users\/alice/);
    given([...org, roleDeleted('roles/viewer')]).when(addMember('users/zoe', ['viewer'])).thenFails('INVALID_ARGUMENT');
  });

  it('rejects a member that is neither a user nor a service account', () => {
    given([initialized]).when(addMember('agents/a', [])).thenFails('INVALID_ARGUMENT', /users\/\{user\} or service-accounts\/\{id\}/);
  });
});

describe('DeclareRole (operator configuration)', () => {
  const config = as('operator-config', PERMISSIONS, T1);
  const declare = (roleId: string, role: RoleInput, isDefault = false): AccessCommand => ({ type: 'DeclareRole', actor: config, roleId, role, isDefault });

  it('creates the role, and makes it the default in the same append when the file says so', () => {
    given([initialized]).when(declare('writer', { displayName: 'writer', permissions: ['KNOWLEDGE_WRITE'] })).then([roleCreated(writer)]);
    given([initialized])
      .when(declare('writer', { displayName: 'writer', permissions: ['KNOWLEDGE_WRITE'] }, true))
      .then([roleCreated(writer), defaultRoleSet('roles/writer', 'roles/admin')]);
  });

  it('creates a role once: an existing or deleted role of that name, and its default flag, are left alone', () => {
    given(org).when(declare('writer', { permissions: ['AGENTS_WRITE'] }, true)).thenNothing();
    given([...org, roleDeleted('roles/viewer')]).when(declare('viewer', {}, true)).thenNothing();
    given([initialized]).when(declare('admin', {}, true)).thenNothing();
  });

  it('refuses an unknown permission key or a malformed role ID', () => {
    given([initialized]).when(declare('x', { permissions: ['EVERYTHING'] })).thenFails('INVALID_ARGUMENT', /unknown permission 'EVERYTHING'/);
    given([initialized]).when(declare('-x', {})).thenFails('INVALID_ARGUMENT', /role_id/);
  });
});

describe('JoinOrganization (a person verified by a trusted identity provider)', () => {
  const join = (user: string): AccessCommand => ({ type: 'JoinOrganization', actor: as(user, []), user });

  it('adds the person holding the default role', () => {
    given([initialized]).when(join('users/zoe')).then([memberAdded('users/zoe', ['roles/admin'])]);
    given([...org, defaultRoleSet('roles/viewer', 'roles/admin')]).when(join('users/zoe')).then([memberAdded('users/zoe', ['roles/viewer'])]);
  });

  it('adds nobody twice and leaves a known member’s roles alone', () => {
    given([initialized, memberAdded('users/zoe', ['roles/admin'])]).when(join('users/zoe')).thenNothing();
    given(org).when(join('users/bob')).thenNothing();
  });

  it('needs an initialized organization and a user name', () => {
    given().when(join('users/zoe')).thenFails('FAILED_PRECONDITION', 'organization is not initialized');
    given([initialized]).when(join('service-accounts/x')).thenFails('INVALID_ARGUMENT', /users\/\{user\}/);
  });

  it('refuses a user ID outside the safe subject set (invisible characters, the wildcard)', () => {
    given([initialized]).when(join('users/al\u200bice')).thenFails('INVALID_ARGUMENT', /user ID/);
    given([initialized]).when(join('users/*')).thenFails('INVALID_ARGUMENT', /user ID/);
  });
});

describe('effectivePermissions and usersWithPermission', () => {
  it('is the sorted union over the live roles held', () => {
    const roles = [ops, writer, { ...role('gone', ['BILLING_WRITE']), deleteTime: T1 }];
    expect(effectivePermissions(['roles/writer', 'roles/ops', 'roles/gone', 'roles/unknown'], roles)).toEqual([
      'AGENTS_WRITE',
      'KNOWLEDGE_WRITE',
    ]);
    expect(effectivePermissions([], roles)).toEqual([]);
  });

  it('lists the users (not service accounts) whose roles grant a permission', () => {
    const state = fold(accessDecider, [...org, memberAdded('users/dan', ['roles/ops']), memberAdded('service-accounts/ci', ['roles/writer'])]);
    expect(usersWithPermission(state, 'KNOWLEDGE_WRITE')).toEqual(['users/alice', 'users/bob', 'users/dan']);
    expect(usersWithPermission(state, 'BILLING_WRITE')).toEqual(['users/alice']);
    const afterDelete = accessDecider.evolve(state, roleDeleted('roles/writer'));
    expect(usersWithPermission(afterDelete, 'KNOWLEDGE_WRITE')).toEqual(['users/alice', 'users/dan']);
  });
});
