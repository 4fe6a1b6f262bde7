import { createPrivateKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, jwtVerify, SignJWT, UnsecuredJWT } from 'jose';
import { createEventStore } from '@svc/infrastructure/event-store';
import { ALICE, API_MAIN, eventually, freePort, GINA, type Response, REQUEST_INFO, Stack, TEST_IDP, TEST_WORKLOAD } from './support/harness';

const ROLES = 'svc.rbac.v1.RolesService';
const NOTES = 'svc.notes.v1.NotesService';
const S1 = 'agents/triage/sessions/s1';
const GLOBEX_SESSION = 'agents/ledger/sessions/g1';
const SESSION_ISSUER = 'urn:svc:agent-session';

const minutes = (n: number) => Math.floor(Date.now() / 1000) + n * 60;

interface JwtOptions {
  key?: KeyObject;
  iss?: string;
  aud?: string;
  sub?: string;
  exp?: number;
  nbf?: number;
  kid?: string;
  claims?: Record<string, unknown>;
}

function sign(defaults: { key: KeyObject; iss: string; aud?: string }, o: JwtOptions): Promise<string> {
  const jwt = new SignJWT(o.claims ?? {})
    .setProtectedHeader({ alg: 'ES256', ...(o.kid ? { kid: o.kid } : {}) })
    .setIssuer(o.iss ?? defaults.iss)
    .setSubject(o.sub ?? 'someone')
    .setExpirationTime(o.exp ?? minutes(5));
  const aud = o.aud ?? defaults.aud;
  if (aud) jwt.setAudience(aud);
  if (o.nbf !== undefined) jwt.setNotBefore(o.nbf);
  return jwt.sign(o.key ?? defaults.key);
}

/** An identity-provider JWT: acme's by default (the test configuration's org claim is `tenant`). */
const idpToken = (o: JwtOptions = {}) => sign({ key: TEST_IDP.privateKey, iss: TEST_IDP.issuer, aud: 'svc' }, { claims: { tenant: 'acme' }, ...o });
const workloadProof = (o: JwtOptions = {}) => sign({ key: TEST_WORKLOAD.privateKey, iss: TEST_WORKLOAD.issuer }, { sub: 'runner-1', ...o });
const otherKey = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;

interface Minted {
  token: string;
  expiresAt: string;
}

describe('authentication: Bearer, Svc-Workload, Svc-Session (api and projector as separate processes)', () => {
  let stack: Stack;
  /** The kid of the api's signing key, as published. */
  let jwksKid = '';
  const as = (authorization: string) => ({ as: null, headers: { authorization } });
  const getAuth = (authorization: string) => stack.request('GET', '/v1/auth', as(authorization));
  const mint = (authorization: string, session: string = S1, body: unknown = { session }) =>
    stack.request<Minted>('POST', '/v1/auth/session-token', { ...as(authorization), body });
  const rpc = <T = Record<string, unknown>>(method: string, body: unknown, authorization: string) =>
    stack.request<T>('POST', `/${method}`, { ...as(authorization), body });
  const sessionToken = async (session = S1) => {
    const res = await mint(`Svc-Workload ${await workloadProof()}`, session);
    expect(res.status).toBe(200);
    return res.body.token;
  };
  /** The signing key the api generated into the data directory (to forge expired tokens with the real key). */
  const realKey = () => {
    const jwk = JSON.parse(fs.readFileSync(path.join(stack.dataDir, 'session-signing-key.json'), 'utf8')) as JsonWebKey;
    return createPrivateKey({ key: jwk, format: 'jwk' });
  };

  function expectUnauthenticated(res: Response<unknown>, challenge: RegExp) {
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: 401, status: 'UNAUTHENTICATED', message: expect.any(String), details: [REQUEST_INFO] } });
    expect(res.headers.get('www-authenticate')).toMatch(challenge);
  }

  beforeAll(async () => {
    stack = await Stack.start();
    // Sessions made the way a user makes them: an agent, then CreateSession (and DeleteSession).
    const AGENTS = 'svc.nxagent.v2.AgentService';
    const ok = (res: Response<unknown>) => expect(res.status).toBe(200);
    ok(await stack.rpc(`${AGENTS}/CreateAgent`, { agent_id: 'triage', agent: { title: 'Triage' } }, ALICE));
    ok(await stack.rpc(`${AGENTS}/CreateAgent`, { agent_id: 'ledger', agent: { title: 'Ledger' } }, GINA));
    ok(await stack.rpc(`${AGENTS}/CreateSession`, { parent: 'agents/triage', session_id: 's1' }, ALICE));
    ok(await stack.rpc(`${AGENTS}/CreateSession`, { parent: 'agents/triage', session_id: 'gone' }, ALICE));
    ok(await stack.rpc(`${AGENTS}/DeleteSession`, { name: 'agents/triage/sessions/gone' }, ALICE));
    ok(await stack.rpc(`${AGENTS}/CreateSession`, { parent: 'agents/ledger', session_id: 'g1' }, GINA));
    jwksKid = (await stack.request<JSONWebKeySet>('GET', '/.well-known/jwks.json', { as: null })).body.keys[0].kid ?? '';
  });
  afterAll(async () => {
    await stack.destroy();
  });

  describe('Bearer JWTs from the configured identity provider', () => {
    it('a known member signs in with a bearer token: the organization comes from the configured claim', async () => {
      const res = await getAuth(`Bearer ${await idpToken({ sub: 'alice' })}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        identity: { actor: 'users/alice', subject: 'users/alice', organization: 'acme', session: '' },
        evidence: { authenticator: 'bearer', provider: '', externalIdentity: 'alice' },
        permissions: expect.arrayContaining(['ROLES_WRITE', 'AGENTS_WRITE']),
      });
      // Alice's roles (admin) come with her: she may write.
      const created = await rpc(`${NOTES}/CreateNote`, { note_id: 'by-bearer', note: { display_name: 'from the IdP' } }, `Bearer ${await idpToken({ sub: 'alice' })}`);
      expect(created.status).toBe(200);
    });

    it.each<[string, () => Promise<string>]>([
      ['expired', () => idpToken({ sub: 'alice', exp: minutes(-5) })],
      ['not yet valid (nbf)', () => idpToken({ sub: 'alice', nbf: minutes(5) })],
      ['for another audience', () => idpToken({ sub: 'alice', aud: 'someone-else' })],
      ['from an unknown issuer', () => idpToken({ sub: 'alice', iss: 'https://evil.test' })],
      ['signed by another key (forged)', () => idpToken({ sub: 'alice', key: otherKey() })],
      ['unsigned (alg none)', async () => new UnsecuredJWT({ tenant: 'acme' }).setIssuer(TEST_IDP.issuer).setAudience('svc').setSubject('alice').setExpirationTime('5m').encode()],
      ['without the organization claim', () => idpToken({ sub: 'alice', claims: {} })],
      ['for an organization that does not exist', () => idpToken({ sub: 'alice', claims: { tenant: 'nowhere' } })],
      ['from the workload issuer', () => workloadProof({ aud: 'svc', claims: { tenant: 'acme' } })],
      ['that is no JWT at all', async () => 'garbage'],
    ])('a bearer token %s is UNAUTHENTICATED with our error shape and a Bearer challenge', async (_, token) => {
      expectUnauthenticated(await getAuth(`Bearer ${await token()}`), /Bearer realm="svc"/);
    });

    it('a person the organization does not know joins once, holding the default role, even on concurrent first requests to two api processes', async () => {
      // A default role other than Admin, so the grant is visible: it may write knowledge, not roles.
      expect((await stack.rpc(`${ROLES}/CreateRole`, { role_id: 'newcomer', role: { permissions: ['KNOWLEDGE_WRITE'] } }, ALICE)).status).toBe(200);
      expect((await stack.rpc(`${ROLES}/SetDefaultRole`, { name: 'roles/newcomer' }, ALICE)).status).toBe(200);

      const port = await freePort();
      const second = stack.spawn('api-2', API_MAIN, { SVC_PROJECTOR: 'off', PORT: String(port) });
      await eventually(async () => ((await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.status === 200 ? true : undefined), 30_000);
      try {
        const token = await idpToken({ sub: 'zoe' });
        const bases = [stack.baseUrl, `http://127.0.0.1:${port}`];
        const answers = await Promise.all(
          Array.from({ length: 8 }, (_, i) => fetch(`${bases[i % 2]}/v1/auth`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status)),
        );
        expect(answers).toEqual(Array(8).fill(200));
      } finally {
        second.kill('SIGTERM');
      }

      const holders = await stack.rpc<{ users: string[] }>(`${ROLES}/ListUsersWithPermission`, { permission: 'KNOWLEDGE_WRITE' }, ALICE);
      expect(holders.body.users).toContain('users/zoe');
      const admins = await stack.rpc<{ users: string[] }>(`${ROLES}/ListUsersWithPermission`, { permission: 'ROLES_WRITE' }, ALICE);
      expect(admins.body.users).not.toContain('users/zoe');

      // Exactly one event added her, recorded as her own act.
      const events = createEventStore({ SVC_DATA_DIR: stack.dataDir });
      try {
        const added = (await events.readStream('access-acme')).filter((e) => e.type === 'MemberAdded' && e.data.member === 'users/zoe');
        expect(added.map((e) => e.data)).toEqual([{ member: 'users/zoe', roles: ['roles/newcomer'] }]);
        expect(added[0].metadata).toMatchObject({ actor: 'users/zoe', org: 'acme' });
      } finally {
        await events.close();
      }

      const zoe = `Bearer ${await idpToken({ sub: 'zoe' })}`;
      expect((await rpc(`${NOTES}/CreateNote`, { note_id: 'by-zoe', note: { display_name: 'hello' } }, zoe)).status).toBe(200);
      expect((await rpc(`${ROLES}/CreateRole`, { role_id: 'zoes', role: {} }, zoe)).body).toMatchObject({ error: { status: 'PERMISSION_DENIED' } });
    });
  });

  describe('MintAgentSessionToken: a workload proof in, a session token of the named session out', () => {
    it('answers an ES256 token with our kid, verifiable with the published JWKS, expiring in 15 minutes', async () => {
      const before = Date.now();
      const res = await mint(`Svc-Workload ${await workloadProof()}`);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['expiresAt', 'token']);
      const expiresAt = Date.parse(res.body.expiresAt);
      expect(expiresAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 15 * 60_000);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + 15 * 60_000);

      const jwks = await stack.request<JSONWebKeySet>('GET', '/.well-known/jwks.json', { as: null });
      expect(jwks.status).toBe(200);
      expect(jwks.body.keys).toEqual([{ kty: 'EC', crv: 'P-256', x: expect.any(String), y: expect.any(String), kid: expect.any(String), alg: 'ES256', use: 'sig' }]);
      expect(decodeProtectedHeader(res.body.token)).toMatchObject({ alg: 'ES256', kid: jwks.body.keys[0].kid });
      const { payload } = await jwtVerify(res.body.token, createLocalJWKSet(jwks.body), { issuer: SESSION_ISSUER });
      expect(payload).toMatchObject({ sub: 'agents/triage', org: 'acme', session: S1 });
    });

    it('takes the organization from the session, never from the caller', async () => {
      const proof = await workloadProof({ claims: { org: 'acme', tenant: 'acme' } });
      const res = await mint(`Svc-Workload ${proof}`, GLOBEX_SESSION);
      expect(res.status).toBe(200);
      const auth = await getAuth(`Svc-Session ${res.body.token}`);
      expect(auth.body).toMatchObject({ identity: { organization: 'globex', subject: 'agents/ledger', session: GLOBEX_SESSION } });
    });

    it('a missing or deleted session is NOT_FOUND; a malformed name INVALID_ARGUMENT', async () => {
      const proof = `Svc-Workload ${await workloadProof()}`;
      for (const session of ['agents/triage/sessions/nope', 'agents/triage/sessions/gone']) {
        const res = await mint(proof, session);
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ error: { status: 'NOT_FOUND', message: `session '${session}' not found` } });
      }
      expect((await mint(proof, 'triage')).body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining('session') } });
      expect((await mint(proof, S1, {})).body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining('session') } });
    });

    it.each<[string, () => Promise<string>]>([
      ['an API key pair', async () => `Basic ${Buffer.from(`${ALICE.username}:${ALICE.password}`).toString('base64')}`],
      ['a bearer token', async () => `Bearer ${await idpToken({ sub: 'alice' })}`],
      ['a session token', async () => `Svc-Session ${await sessionToken()}`],
      ['a proof from an unknown issuer', async () => `Svc-Workload ${await workloadProof({ iss: 'https://evil.test', key: otherKey() })}`],
      ['a proof signed by another key', async () => `Svc-Workload ${await workloadProof({ key: otherKey() })}`],
      ['an identity-provider JWT as a proof', async () => `Svc-Workload ${await idpToken({ sub: 'alice' })}`],
      ['an expired proof', async () => `Svc-Workload ${await workloadProof({ exp: minutes(-5) })}`],
      ['nothing', async () => ''],
    ])('refuses %s: UNAUTHENTICATED with a Svc-Workload challenge', async (_, header) => {
      const authorization = await header();
      const res = authorization ? await mint(authorization) : await stack.request('POST', '/v1/auth/session-token', { as: null, body: { session: S1 } });
      expectUnauthenticated(res, /^Svc-Workload realm="svc"$/);
    });

    it('a workload proof is accepted nowhere else', async () => {
      const res = await getAuth(`Svc-Workload ${await workloadProof()}`);
      expectUnauthenticated(res, /Basic realm="svc", Bearer realm="svc", Svc-Session realm="svc"/);
      expect(res.body).toMatchObject({ error: { message: expect.stringContaining('only by MintAgentSessionToken') } });
    });
  });

  describe('Svc-Session tokens on every other route', () => {
    it('GetAuth shows the agent, its session and the organization, acting as the agent service identity', async () => {
      const res = await getAuth(`Svc-Session ${await sessionToken()}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        identity: { actor: 'service-accounts/agents', subject: 'agents/triage', organization: 'acme', session: S1 },
        evidence: { authenticator: 'session', provider: TEST_WORKLOAD.issuer, externalIdentity: 'runner-1' },
        // The agent service identity's keys (permissions.md), and no others.
        permissions: ['AGENTS_WRITE', 'INDICATORS_WRITE', 'INVESTIGATIONS_WRITE', 'KNOWLEDGE_WRITE'],
      });
    });

    it('holds exactly the agent service identity’s keys, and its writes are recorded with that actor and the agent as subject', async () => {
      const auth = `Svc-Session ${await sessionToken()}`;
      const created = await rpc(`${NOTES}/CreateNote`, { note_id: 'by-agent', note: { display_name: 'found it' } }, auth);
      expect(created.status).toBe(200);
      const denied = await rpc(`${ROLES}/CreateRole`, { role_id: 'agent-role', role: {} }, auth);
      expect(denied.status).toBe(403);
      const events = createEventStore({ SVC_DATA_DIR: stack.dataDir });
      try {
        const [event] = await events.readStream('note-acme:notes/by-agent');
        expect(event.metadata).toMatchObject({ org: 'acme', actor: 'service-accounts/agents', subject: 'agents/triage' });
      } finally {
        await events.close();
      }
    });

    it.each<[string, () => Promise<string>]>([
      [
        'expired',
        () =>
          sign({ key: realKey(), iss: SESSION_ISSUER }, { sub: 'agents/triage', exp: minutes(-5), kid: jwksKid, claims: { org: 'acme', session: S1 } }),
      ],
      ['forged (another key under our kid)', () => sign({ key: otherKey(), iss: SESSION_ISSUER }, { sub: 'agents/triage', kid: jwksKid, claims: { org: 'acme', session: S1 } })],
      ['foreign (another key and kid)', () => sign({ key: otherKey(), iss: SESSION_ISSUER }, { sub: 'agents/triage', kid: 'other', claims: { org: 'acme', session: S1 } })],
      [
        'tampered (organization swapped)',
        async () => {
          const [header, payload, signature] = (await sessionToken()).split('.');
          const claims = { ...JSON.parse(Buffer.from(payload, 'base64url').toString()), org: 'globex' };
          return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
        },
      ],
      ['a workload proof', () => workloadProof()],
    ])('a session token %s is UNAUTHENTICATED', async (_, token) => {
      expectUnauthenticated(await getAuth(`Svc-Session ${await token()}`), /Svc-Session realm="svc"/);
    });

    it('tenancy: a session token of acme reads acme, never globex', async () => {
      expect((await stack.rpc(`${NOTES}/CreateNote`, { note_id: 'globex-only', note: { display_name: 'secret' } }, GINA)).status).toBe(200);
      const auth = `Svc-Session ${await sessionToken()}`;
      const get = await rpc(`${NOTES}/GetNote`, { name: 'notes/globex-only' }, auth);
      expect(get.status).toBe(404);
      const list = await rpc<{ notes: Array<{ name: string }> }>(`${NOTES}/ListNotes`, { page_size: 1000 }, auth);
      expect(list.status).toBe(200);
      expect(list.body.notes.map((n) => n.name)).toContain('notes/by-bearer');
      expect(list.body.notes.map((n) => n.name)).not.toContain('notes/globex-only');
    });
  });
});

describe('the session signing key at start', () => {
  it('with the server stores and no SVC_SESSION_SIGNING_KEY, the api refuses to start and says why', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-e2e-'));
    const start = Stack.start({
      layout: 'inprocess',
      dataDir,
      env: { EVENTSTORE_URL: 'esdb://127.0.0.1:1?tls=false', SVC_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'), SVC_SESSION_SIGNING_KEY: '' },
    });
    try {
      await expect(start).rejects.toThrow(/SVC_SESSION_SIGNING_KEY is required with EVENTSTORE_URL\/MONGODB_URL/);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
