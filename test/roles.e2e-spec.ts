import { ALICE, BOB, CAROL, DAVE, DEPLOYER, GINA, Stack } from './support/harness';

const S = 'svc.rbac.v1.RolesService';
const ALL = [
  'AGENTS_WRITE',
  'BILLING_WRITE',
  'CHANGE_MONITOR_WRITE',
  'INDICATORS_WRITE',
  'INTEGRATIONS_WRITE',
  'INVESTIGATIONS_WRITE',
  'KNOWLEDGE_WRITE',
  'MEMBERS_WRITE',
  'NOTIFICATIONS_PUBLISH',
  'ROLES_WRITE',
];

interface Role {
  name: string;
  displayName: string;
  description: string;
  permissions: string[];
  system: boolean;
  isDefault: boolean;
  createTime: string;
  updateTime: string;
  deleteTime?: string;
}

describe('roles (svc.rbac.v1.RolesService)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start();
  });
  afterAll(async () => {
    await stack.destroy();
  });

  const assign = (user: string, roles: string[], as = ALICE) => stack.rpc<{ roles: string[] }>(`${S}/AssignRoles`, { user, roles }, as);

  it('every organization starts with the seeded Admin role: system, all permissions, default', async () => {
    const res = await stack.rpc<{ role: Role }>(`${S}/GetRole`, { name: 'roles/admin' });
    expect(res.status).toBe(200);
    expect(res.body.role).toMatchObject({ name: 'roles/admin', system: true, isDefault: true, permissions: ALL });
    const globex = await stack.rpc<{ role: Role }>(`${S}/GetRole`, { name: 'roles/admin' }, GINA);
    expect(globex.body.role).toMatchObject({ system: true, isDefault: true });
  });

  it('CreateRole with an ID, with a generated ID, and the ID rule', async () => {
    const created = await stack.rpc<{ role: Role }>(`${S}/CreateRole`, {
      role_id: 'knowledge-editor',
      role: { display_name: 'Knowledge editor', description: 'Writes notes', permissions: ['KNOWLEDGE_WRITE', 'KNOWLEDGE_WRITE'], system: true, is_default: true },
    });
    expect(created.status).toBe(200);
    expect(created.body.role).toEqual({
      name: 'roles/knowledge-editor',
      displayName: 'Knowledge editor',
      description: 'Writes notes',
      permissions: ['KNOWLEDGE_WRITE'],
      system: false,
      isDefault: false,
      createTime: expect.any(String),
      updateTime: expect.any(String),
    });
    const generated = await stack.rpc<{ role: Role }>(`${S}/CreateRole`, { role: { display_name: 'Generated' } });
    expect(generated.body.role.name).toMatch(/^roles\/[a-zA-Z0-9][a-zA-Z0-9_-]*$/);
    for (const roleId of ['-starts-with-hyphen', 'has space', 'slash/inside']) {
      const bad = await stack.rpc(`${S}/CreateRole`, { role_id: roleId, role: {} });
      expect(bad.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT' } });
    }
    expect((await stack.rpc(`${S}/CreateRole`, { role_id: 'knowledge-editor', role: {} })).status).toBe(409);
    const unknownPermission = await stack.rpc(`${S}/CreateRole`, { role_id: 'x1', role: { permissions: ['FLY'] } });
    expect(unknownPermission.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringMatching(/FLY/) } });
  });

  it('writes need ROLES_WRITE', async () => {
    const res = await stack.rpc(`${S}/CreateRole`, { role_id: 'by-bob', role: {} }, BOB);
    expect(res.body).toMatchObject({ error: { code: 403, status: 'PERMISSION_DENIED' } });
    expect((await stack.rpc(`${S}/ListRoles`, {}, BOB)).status).toBe(200);
  });

  describe('no escalation', () => {
    beforeAll(async () => {
      await stack.rpc(`${S}/CreateRole`, { role_id: 'role-admin-lite', role: { display_name: 'Roles + knowledge', permissions: ['ROLES_WRITE', 'KNOWLEDGE_WRITE'] } });
      await stack.rpc(`${S}/CreateRole`, { role_id: 'agents', role: { permissions: ['AGENTS_WRITE'] } });
      expect((await assign('users/carol', ['role-admin-lite'])).status).toBe(200);
    });

    it('on create: only permissions the caller holds', async () => {
      const ok = await stack.rpc(`${S}/CreateRole`, { role_id: 'carol-made', role: { permissions: ['KNOWLEDGE_WRITE'] } }, CAROL);
      expect(ok.status).toBe(200);
      const denied = await stack.rpc(`${S}/CreateRole`, { role_id: 'carol-escalates', role: { permissions: ['AGENTS_WRITE'] } }, CAROL);
      expect(denied.body).toMatchObject({ error: { status: 'PERMISSION_DENIED', message: expect.stringMatching(/AGENTS_WRITE/) } });
      expect((await stack.rpc(`${S}/GetRole`, { name: 'roles/carol-escalates' })).status).toBe(404);
    });

    it('on edit', async () => {
      const denied = await stack.rpc(`${S}/UpdateRole`, { role: { name: 'roles/carol-made', permissions: ['KNOWLEDGE_WRITE', 'BILLING_WRITE'] }, update_mask: 'permissions' }, CAROL);
      expect(denied.body).toMatchObject({ error: { status: 'PERMISSION_DENIED' } });
    });

    it('on set-default', async () => {
      const denied = await stack.rpc(`${S}/SetDefaultRole`, { name: 'roles/agents' }, CAROL);
      expect(denied.body).toMatchObject({ error: { status: 'PERMISSION_DENIED' } });
    });

    it('on assign', async () => {
      const denied = await assign('users/dave', ['agents'], CAROL);
      expect(denied.body).toMatchObject({ error: { status: 'PERMISSION_DENIED' } });
      const allowed = await assign('users/dave', ['roles/carol-made'], CAROL);
      expect(allowed.body).toEqual({ roles: ['roles/carol-made'] });
    });
  });

  it('UpdateRole applies the mask; Admin cannot be edited', async () => {
    await stack.rpc(`${S}/CreateRole`, { role_id: 'editable', role: { display_name: 'Before', description: 'stays', permissions: ['AGENTS_WRITE'] } });
    const updated = await stack.rpc<{ role: Role }>(`${S}/UpdateRole`, {
      role: { name: 'roles/editable', display_name: 'After', description: 'ignored', system: true, is_default: true },
      update_mask: 'display_name',
    });
    expect(updated.body.role).toMatchObject({ displayName: 'After', description: 'stays', system: false, isDefault: false, permissions: ['AGENTS_WRITE'] });
    const all = await stack.rpc<{ role: Role }>(`${S}/UpdateRole`, { role: { name: 'roles/editable', display_name: 'Star' }, update_mask: '*' });
    expect(all.body.role).toMatchObject({ displayName: 'Star', description: '', permissions: [] });
    const admin = await stack.rpc(`${S}/UpdateRole`, { role: { name: 'roles/admin', display_name: 'Boss' } });
    expect(admin.body).toMatchObject({ error: { code: 400, status: 'FAILED_PRECONDITION' } });
  });

  it('SetDefaultRole moves the flag atomically; DeleteRole refuses Admin and the default', async () => {
    await stack.rpc(`${S}/CreateRole`, { role_id: 'newcomer', role: { permissions: ['KNOWLEDGE_WRITE'] } });
    const set = await stack.rpc<{ role: Role }>(`${S}/SetDefaultRole`, { name: 'roles/newcomer' });
    expect(set.body.role).toMatchObject({ name: 'roles/newcomer', isDefault: true });
    const roles = await stack.rpc<{ roles: Role[] }>(`${S}/ListRoles`, { filter: 'is_default = true' });
    expect(roles.body.roles.map((r) => r.name)).toEqual(['roles/newcomer']);
    expect((await stack.rpc<{ role: Role }>(`${S}/GetRole`, { name: 'roles/admin' })).body.role.isDefault).toBe(false);

    const deleteDefault = await stack.rpc(`${S}/DeleteRole`, { name: 'roles/newcomer' });
    expect(deleteDefault.body).toMatchObject({ error: { status: 'FAILED_PRECONDITION', message: expect.stringMatching(/default/) } });
    const deleteAdmin = await stack.rpc(`${S}/DeleteRole`, { name: 'roles/admin' });
    expect(deleteAdmin.body).toMatchObject({ error: { status: 'FAILED_PRECONDITION' } });
    await stack.rpc(`${S}/SetDefaultRole`, { name: 'roles/admin' });
  });

  it('a deleted role is soft-deleted and its holders lose its permissions on their next request', async () => {
    await stack.rpc(`${S}/CreateRole`, { role_id: 'temp-agents', role: { permissions: ['AGENTS_WRITE'] } });
    expect((await assign('users/bob', ['temp-agents'])).status).toBe(200);
    const holders = await stack.rpc<{ users: string[] }>(`${S}/ListUsersWithPermission`, { permission: 'AGENTS_WRITE' });
    expect(holders.body.users).toContain('users/bob');
    expect((await stack.rpc(`${S}/CreateRole`, { role_id: 'bob-knows', role: { permissions: ['AGENTS_WRITE'] } }, BOB)).status).toBe(403);

    const deleted = await stack.rpc(`${S}/DeleteRole`, { name: 'roles/temp-agents' });
    expect(deleted.body).toEqual({});
    expect((await stack.rpc<{ role: Role }>(`${S}/GetRole`, { name: 'roles/temp-agents' })).body.role.deleteTime).toBeDefined();
    const listed = await stack.rpc<{ roles: Role[] }>(`${S}/ListRoles`, { filter: 'name = "roles/temp-agents"' });
    expect(listed.body.roles).toEqual([]);
    const withDeleted = await stack.rpc<{ roles: Role[] }>(`${S}/ListRoles`, { filter: 'name = "roles/temp-agents"', show_deleted: true });
    expect(withDeleted.body.roles).toHaveLength(1);
    const after = await stack.rpc<{ users: string[] }>(`${S}/ListUsersWithPermission`, { permission: 'AGENTS_WRITE' });
    expect(after.body.users).not.toContain('users/bob');
  });

  it('AssignRoles replaces the set, deduplicated and order-free; every role must exist; empty is allowed', async () => {
    const res = await assign('users/dave', ['roles/agents', 'knowledge-editor', 'agents']);
    expect(res.body).toEqual({ roles: ['roles/agents', 'roles/knowledge-editor'] });
    const missing = await assign('users/dave', ['roles/nope']);
    expect(missing.body).toMatchObject({ error: { status: 'NOT_FOUND', message: expect.stringMatching(/roles\/nope/) } });
    expect((await assign('users/dave', [])).body).toEqual({ roles: [] });
    expect((await assign('users/nobody', [])).status).toBe(404);
    expect((await assign('bob', [])).status).toBe(400);
  });

  it('ListUsersWithPermission pages over members and rejects an unknown key', async () => {
    const first = await stack.rpc<{ users: string[]; nextPageToken: string }>(`${S}/ListUsersWithPermission`, { permission: 'ROLES_WRITE', page_size: 1 });
    expect(first.body.users).toEqual(['users/alice']);
    const second = await stack.rpc<{ users: string[]; nextPageToken: string }>(`${S}/ListUsersWithPermission`, {
      permission: 'ROLES_WRITE',
      page_size: 1,
      page_token: first.body.nextPageToken,
    });
    expect(second.body.users).toEqual(['users/carol']);
    expect((await stack.rpc(`${S}/ListUsersWithPermission`, { permission: 'FLY' })).status).toBe(400);
  });

  it('last-admin guardrail: the last member holding Admin cannot lose it (service accounts do not count)', async () => {
    // DEPLOYER is a service account holding Admin; Alice is the only user with Admin.
    const res = await assign('users/alice', [], DEPLOYER);
    expect(res.body).toMatchObject({ error: { code: 400, status: 'FAILED_PRECONDITION', message: expect.stringMatching(/Admin/) } });
    expect((await stack.request('GET', '/v1/auth', { as: ALICE })).status).toBe(200);
  });

  it('two racing requests that would each remove "the other" last admin: exactly one wins, every time', async () => {
    for (let round = 0; round < 5; round++) {
      // Both Alice and Dave hold Admin; each asks to take it from the other, at the same moment.
      const admin = (await stack.rpc<{ users: string[] }>(`${S}/ListUsersWithPermission`, { permission: 'ROLES_WRITE' })).body.users;
      const survivor = admin.includes('users/alice') ? ALICE : DAVE;
      expect((await assign('users/alice', ['admin'], survivor)).status).toBe(200);
      expect((await assign('users/dave', ['admin'], survivor)).status).toBe(200);
      const [a, b] = await Promise.all([assign('users/dave', [], ALICE), assign('users/alice', [], DAVE)]);
      const outcomes = [a, b].map((r) => (r.status === 200 ? 'won' : (r.body as unknown as { error: { status: string } }).error.status));
      // The loser either lost the race inside the aggregate (last admin) or arrived after it lost Admin.
      expect(outcomes.filter((o) => o === 'won')).toHaveLength(1);
      expect(outcomes.filter((o) => o !== 'won')[0]).toMatch(/^(FAILED_PRECONDITION|PERMISSION_DENIED)$/);
      const admins = await stack.rpc<{ users: string[] }>(`${S}/ListUsersWithPermission`, { permission: 'ROLES_WRITE' });
      expect(admins.body.users.filter((u) => u === 'users/alice' || u === 'users/dave')).toHaveLength(1);
    }
  });

  it('ListRoles orders and pages; another organization sees only its own roles', async () => {
    const page = await stack.rpc<{ roles: Role[]; nextPageToken: string }>(`${S}/ListRoles`, { order_by: 'name desc', page_size: 2 });
    expect(page.body.roles).toHaveLength(2);
    expect(page.body.nextPageToken).not.toBe('');
    const globex = await stack.rpc<{ roles: Role[] }>(`${S}/ListRoles`, {}, GINA);
    expect(globex.body.roles.map((r) => r.name)).toEqual(['roles/admin']);
    expect((await stack.rpc(`${S}/GetRole`, { name: 'roles/knowledge-editor' }, GINA)).status).toBe(404);
  });
});
