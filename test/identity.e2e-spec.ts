import { ALICE, BOB, DEPLOYER, GINA, REQUEST_INFO, Stack } from './support/harness';

describe('identity: GetAuth and tenancy (api and projector as separate processes)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start();
  });
  afterAll(async () => {
    await stack.destroy();
  });

  it('GetAuth returns exactly the identity, evidence and effective permission keys of a member API key', async () => {
    const res = await stack.request('GET', '/v1/auth', { as: ALICE });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      identity: { actor: 'users/alice', subject: 'users/alice', organization: 'acme', session: '' },
      evidence: { authenticator: 'basic', provider: '', externalIdentity: '' },
      // Admin holds every key (permissions.md), answered sorted.
      permissions: [
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
      ],
    });
  });

  it('GetAuth permissions are the union over the roles held now (spec part 1, "permissions field")', async () => {
    const permissions = async () => (await stack.request<{ permissions: string[] }>('GET', '/v1/auth', { as: BOB })).body.permissions;
    expect(await permissions()).toEqual([]);
    const ROLES = 'svc.rbac.v1.RolesService';
    expect((await stack.rpc(`${ROLES}/CreateRole`, { role_id: 'writer', role: { permissions: ['NOTIFICATIONS_PUBLISH', 'KNOWLEDGE_WRITE'] } }, ALICE)).status).toBe(200);
    expect((await stack.rpc(`${ROLES}/CreateRole`, { role_id: 'agents', role: { permissions: ['KNOWLEDGE_WRITE', 'AGENTS_WRITE'] } }, ALICE)).status).toBe(200);
    expect((await stack.rpc(`${ROLES}/AssignRoles`, { user: 'users/bob', roles: ['roles/writer', 'roles/agents'] }, ALICE)).status).toBe(200);
    expect(await permissions()).toEqual(['AGENTS_WRITE', 'KNOWLEDGE_WRITE', 'NOTIFICATIONS_PUBLISH']);
    expect((await stack.rpc(`${ROLES}/DeleteRole`, { name: 'roles/writer' }, ALICE)).status).toBe(200);
    expect(await permissions()).toEqual(['AGENTS_WRITE', 'KNOWLEDGE_WRITE']);
  });

  it('a service account is the actor of its own key', async () => {
    const res = await stack.request('GET', '/v1/auth', { as: DEPLOYER });
    expect(res.body).toMatchObject({ identity: { actor: 'service-accounts/deployer', subject: 'service-accounts/deployer', organization: 'acme' } });
  });

  it('the organization comes from the credential', async () => {
    const res = await stack.request('GET', '/v1/auth', { as: GINA });
    expect(res.body).toMatchObject({ identity: { actor: 'users/gina', organization: 'globex' } });
  });

  it.each([
    ['no credentials', null],
    ['a wrong secret', { username: 'alice-key', password: 'wrong' }],
    ['an unknown key', { username: 'nobody', password: 'alice-secret' }],
    ['another key’s secret', { username: 'bob-key', password: ALICE.password }],
  ])('%s is UNAUTHENTICATED', async (_, as) => {
    const res = await stack.request('GET', '/v1/auth', { as });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: 401, status: 'UNAUTHENTICATED', message: expect.any(String), details: [REQUEST_INFO] } });
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('a malformed Authorization header is UNAUTHENTICATED, not a server error', async () => {
    const res = await stack.request('GET', '/v1/auth', { as: null, headers: { authorization: 'Basic !!!notbase64' } });
    expect(res.status).toBe(401);
  });

  it('a verified key keeps working on repeated requests (cached verification) and a wrong secret still fails after it', async () => {
    for (let i = 0; i < 3; i++) expect((await stack.request('GET', '/v1/auth', { as: BOB })).status).toBe(200);
    expect((await stack.request('GET', '/v1/auth', { as: { username: 'bob-key', password: 'bob-secret!' } })).status).toBe(401);
  });

  it('no API key or connection secret is stored in clear, in events or read models', async () => {
    const fs = await import('node:fs');
    const path = await import('node:path');
    // The SQLite files and their write-ahead logs hold every event and document.
    const stored = fs
      .readdirSync(stack.dataDir)
      .filter((f) => f.includes('.db'))
      .map((f) => fs.readFileSync(path.join(stack.dataDir, f)));
    expect(stored.length).toBeGreaterThan(0);
    for (const bytes of stored) {
      expect(bytes.includes(Buffer.from('alice-secret'))).toBe(false);
      expect(bytes.includes(Buffer.from('inline-secret'))).toBe(false);
    }
  });
});
