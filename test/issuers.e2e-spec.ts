/**
 * Issue 16, "No tenant can read, slow or starve another": every trusted issuer is bound to the
 * organizations the operator configuration names, bearer subjects come from a safe set, configured
 * roles give newcomers their default, and a session token dies with its session or agent.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SignJWT } from 'jose';
import { createEventStore } from '@svc/infrastructure/event-store';
import { ALICE, GINA, type Response, Stack, TEST_CONFIG, TEST_IDP, TEST_WORKLOAD } from './support/harness';

const AGENTS = 'svc.nxagent.v2.AgentService';
const ROLES = 'svc.rbac.v1.RolesService';
const NOTES = 'svc.notes.v1.NotesService';

/** An issuer only this file trusts, bound to globex. */
function globexIssuer(issuer: string, env: string) {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { issuer, env, privateKey, publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString() };
}
const GLOBEX_IDP = globexIssuer('https://idp.globex.test', 'GLOBEX_IDP_PUBLIC_KEY');
const GLOBEX_WORKLOAD = globexIssuer('https://workload.globex.test', 'GLOBEX_WORKLOAD_PUBLIC_KEY');

/**
 * TEST_CONFIG (acme's IdP and the shared workload issuer), plus: acme declares a default role
 * `responder`; globex has its own identity provider and its own workload platform.
 */
const CONFIG = TEST_CONFIG.replace(
  '    display_name: Acme Inc.\n',
  `    display_name: Acme Inc.
    roles:
      - id: responder
        display_name: Responder
        permissions: [KNOWLEDGE_WRITE, INVESTIGATIONS_WRITE]
        default: true
`,
)
  .replace(
    'bearer_issuers:\n',
    `bearer_issuers:
  - issuer: ${GLOBEX_IDP.issuer}
    audience: svc
    public_key_pem: "\${env:${GLOBEX_IDP.env}}"
    org_claim: tenant
    organizations: [globex]
`,
  )
  .replace(
    'workload_issuers:\n',
    `workload_issuers:
  - issuer: ${GLOBEX_WORKLOAD.issuer}
    public_key_pem: "\${env:${GLOBEX_WORKLOAD.env}}"
    organizations: [globex]
`,
  );

const minutes = (n: number) => Math.floor(Date.now() / 1000) + n * 60;

function sign(key: KeyObject, iss: string, sub: string, claims: Record<string, unknown>, aud?: string): Promise<string> {
  const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'ES256' }).setIssuer(iss).setSubject(sub).setExpirationTime(minutes(5));
  if (aud) jwt.setAudience(aud);
  return jwt.sign(key);
}
const acmeIdp = (sub: string, tenant = 'acme') => sign(TEST_IDP.privateKey, TEST_IDP.issuer, sub, { tenant }, 'svc');
const globexIdp = (sub: string, tenant: string) => sign(GLOBEX_IDP.privateKey, GLOBEX_IDP.issuer, sub, { tenant }, 'svc');
const sharedProof = () => sign(TEST_WORKLOAD.privateKey, TEST_WORKLOAD.issuer, 'runner-1', {});
const globexProof = () => sign(GLOBEX_WORKLOAD.privateKey, GLOBEX_WORKLOAD.issuer, 'globex-runner', {});

describe('issuers bound to organizations, safe subjects, configured default roles, session tokens checked on use', () => {
  let stack: Stack;
  const call = <T = Record<string, unknown>>(method: string, body: unknown, authorization: string) =>
    stack.request<T>('POST', `/${method}`, { as: null, body, headers: { authorization } });
  const getAuth = (authorization: string) => stack.request('GET', '/v1/auth', { as: null, headers: { authorization } });
  const mint = (proof: string, session: string) =>
    stack.request<{ token: string }>('POST', '/v1/auth/session-token', { as: null, body: { session }, headers: { authorization: `Svc-Workload ${proof}` } });
  const ok = (res: Response<unknown>) => expect([res.status, res.body]).toEqual([200, expect.anything()]);
  /** Acme's users holding a permission, as ListUsersWithPermission answers Alice. */
  const holders = async (permission: string) =>
    (await stack.rpc<{ users: string[] }>(`${ROLES}/ListUsersWithPermission`, { permission, page_size: 1000 }, ALICE)).body.users;
  /** The events of `access-acme`: every member ever added to acme is one of them. */
  const acmeAccess = async () => {
    const events = createEventStore({ SVC_DATA_DIR: stack.dataDir });
    try {
      return (await events.readStream('access-acme')).map((e) => ({ type: e.type, data: e.data }));
    } finally {
      await events.close();
    }
  };
  const head = async () => {
    const events = createEventStore({ SVC_DATA_DIR: stack.dataDir });
    try {
      return String((await events.headPosition())?.commit);
    } finally {
      await events.close();
    }
  };

  beforeAll(async () => {
    stack = await Stack.start({ config: CONFIG, env: { [GLOBEX_IDP.env]: GLOBEX_IDP.publicKeyPem, [GLOBEX_WORKLOAD.env]: GLOBEX_WORKLOAD.publicKeyPem } });
    ok(await stack.rpc(`${AGENTS}/CreateAgent`, { agent_id: 'triage', agent: { title: 'Triage' } }, ALICE));
    ok(await stack.rpc(`${AGENTS}/CreateSession`, { parent: 'agents/triage', session_id: 's1' }, ALICE));
    ok(await stack.rpc(`${AGENTS}/CreateAgent`, { agent_id: 'ledger', agent: { title: 'Ledger' } }, GINA));
    ok(await stack.rpc(`${AGENTS}/CreateSession`, { parent: 'agents/ledger', session_id: 'g1' }, GINA));
  });
  afterAll(async () => {
    await stack.destroy();
  });

  describe('a bearer issuer reaches only its organizations', () => {
    it("globex's identity provider cannot sign anyone in to acme, configured admins included; nothing joins", async () => {
      const before = { access: await acmeAccess(), writers: await holders('KNOWLEDGE_WRITE'), admins: await holders('ROLES_WRITE') };
      for (const sub of ['alice', 'mallory']) {
        const res = await getAuth(`Bearer ${await globexIdp(sub, 'acme')}`);
        expect([sub, res.status, res.body]).toEqual([sub, 401, { error: expect.objectContaining({ status: 'UNAUTHENTICATED' }) }]);
        expect(res.headers.get('www-authenticate')).toContain('Bearer realm="svc"');
        const write = await call(`${NOTES}/CreateNote`, { note_id: `by-${sub}`, note: { display_name: 'x' } }, `Bearer ${await globexIdp(sub, 'acme')}`);
        expect(write.status).toBe(401);
      }
      expect({ access: await acmeAccess(), writers: await holders('KNOWLEDGE_WRITE'), admins: await holders('ROLES_WRITE') }).toEqual(before);
    });

    it('the same identity provider still signs people in to its own organization', async () => {
      const res = await getAuth(`Bearer ${await globexIdp('gordon', 'globex')}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ identity: { actor: 'users/gordon', organization: 'globex' } });
    });

    it("acme's identity provider cannot sign in to globex", async () => {
      expect((await getAuth(`Bearer ${await acmeIdp('gina', 'globex')}`)).status).toBe(401);
    });
  });

  describe('a workload issuer mints only for sessions of its organizations', () => {
    it('a proof of the globex-bound issuer cannot mint a token for an acme session; no event is appended', async () => {
      const position = await head();
      const res = await mint(await globexProof(), 'agents/triage/sessions/s1');
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
      expect(JSON.stringify(res.body)).not.toContain('acme');
      expect(res.headers.get('www-authenticate')).toBe('Svc-Workload realm="svc"');
      expect(await head()).toBe(position);
    });

    it('the same proof mints for its own organization’s session, and that token reads globex only', async () => {
      const res = await mint(await globexProof(), 'agents/ledger/sessions/g1');
      expect(res.status).toBe(200);
      const session = { as: null, headers: { authorization: `Svc-Session ${res.body.token}` } };
      expect((await stack.request('GET', '/v1/connections/ledger', session)).status).toBe(200);
      expect((await stack.request('GET', '/v1/connections/warehouse', session)).status).toBe(404);
    });
  });

  describe('roles declared in the configuration', () => {
    it('a first bearer login into acme holds the declared default role, not admin', async () => {
      const newbie = `Bearer ${await acmeIdp('newbie')}`;
      expect((await getAuth(newbie)).status).toBe(200);
      expect(await holders('KNOWLEDGE_WRITE')).toContain('users/newbie');
      expect(await holders('INVESTIGATIONS_WRITE')).toContain('users/newbie');
      expect(await holders('ROLES_WRITE')).not.toContain('users/newbie');
      expect(await holders('AGENTS_WRITE')).not.toContain('users/newbie');
      ok(await call(`${NOTES}/CreateNote`, { note_id: 'by-newbie', note: { display_name: 'hello' } }, newbie));
      expect((await call(`${ROLES}/CreateRole`, { role_id: 'mine', role: {} }, newbie)).body).toMatchObject({ error: { status: 'PERMISSION_DENIED' } });
      expect((await call(`${AGENTS}/CreateAgent`, { agent_id: 'newbies', agent: { title: 'N' } }, newbie)).body).toMatchObject({
        error: { status: 'PERMISSION_DENIED' },
      });
      const role = await stack.rpc(`${ROLES}/GetRole`, { name: 'roles/responder' }, ALICE);
      expect(role.body).toMatchObject({ role: { name: 'roles/responder', displayName: 'Responder', isDefault: true, system: false } });
    });
  });

  describe('bearer subjects from the safe set', () => {
    it.each<[string, string]>([
      ['a zero-width space', 'al\u200bice'],
      ['the wildcard', '*'],
      ['a wildcard suffix', 'ali*'],
      ['a control character', 'alice\u0007'],
      ['a newline', 'alice\nbob'],
      ['a right-to-left override', '\u202eecila'],
      ['fullwidth letters', 'ａｌｉｃｅ'],
      ['a slash', 'alice/x'],
      ['a space', 'alice smith'],
    ])('a subject with %s is refused and creates no member', async (_, sub) => {
      const before = await acmeAccess();
      const res = await getAuth(`Bearer ${await acmeIdp(sub)}`);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error: { status: 'UNAUTHENTICATED' } });
      expect(await acmeAccess()).toEqual(before);
      expect(await holders('KNOWLEDGE_WRITE')).not.toContain(`users/${sub}`);
    });
  });

  describe('a session token is checked against its session and agent on every request', () => {
    it('a deleted session’s token is refused on the next request', async () => {
      ok(await stack.rpc(`${AGENTS}/CreateSession`, { parent: 'agents/triage', session_id: 'short' }, ALICE));
      const token = `Svc-Session ${(await mint(await sharedProof(), 'agents/triage/sessions/short')).body.token}`;
      ok(await call(`${NOTES}/CreateNote`, { note_id: 'before-delete', note: { display_name: 'ok' } }, token));
      ok(await stack.rpc(`${AGENTS}/DeleteSession`, { name: 'agents/triage/sessions/short' }, ALICE));
      const write = await call(`${NOTES}/CreateNote`, { note_id: 'after-delete', note: { display_name: 'no' } }, token);
      expect(write.status).toBe(401);
      expect((await getAuth(token)).status).toBe(401);
      expect((await stack.rpc(`${NOTES}/GetNote`, { name: 'notes/after-delete' }, ALICE)).status).toBe(404);
    });

    it('a deleted agent’s token is refused on the next request', async () => {
      ok(await stack.rpc(`${AGENTS}/CreateAgent`, { agent_id: 'doomed', agent: { title: 'Doomed' } }, ALICE));
      ok(await stack.rpc(`${AGENTS}/CreateSession`, { parent: 'agents/doomed', session_id: 'd1' }, ALICE));
      const token = `Svc-Session ${(await mint(await sharedProof(), 'agents/doomed/sessions/d1')).body.token}`;
      expect((await getAuth(token)).status).toBe(200);
      ok(await stack.rpc(`${AGENTS}/DeleteAgent`, { name: 'agents/doomed' }, ALICE));
      expect((await getAuth(token)).status).toBe(401);
      expect((await call(`${AGENTS}/UpdateAgent`, { agent: { name: 'agents/doomed', title: 'back' }, update_mask: 'title' }, token)).status).toBe(401);
    });
  });
});

describe('the operator configuration at start', () => {
  it('an issuer without organizations stops the api, naming the entry', async () => {
    const unbound = TEST_CONFIG.replace('    organizations: [acme]\nmachine_credentials', 'machine_credentials');
    expect(unbound).not.toBe(TEST_CONFIG);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-e2e-'));
    try {
      await expect(Stack.start({ layout: 'inprocess', config: unbound, dataDir })).rejects.toThrow(
        /bearer_issuers\[0\]\.organizations must list the organizations this issuer may sign in to \(required\)/,
      );
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
