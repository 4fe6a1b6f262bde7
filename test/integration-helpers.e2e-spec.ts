/**
 * The integration helpers that change connections (spec part 1, "Integration helper endpoints"):
 * the OAuth starts and their callback against a real local authorization server (oidc-provider),
 * the token then used by the code host against the fake GitHub; the pager and incident-manager
 * webhook registrations and the deliveries their URLs receive.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SignJWT } from 'jose';
import { loadMasterKey } from '@svc/infrastructure/config/secrets';
import { OAuthStates } from '@svc/infrastructure/integrations/oauth/oauth-state';
import { pagerSignature } from '@svc/infrastructure/integrations/pager/webhook-signature';
import { FakeGitHub } from './support/fake-github';
import { GitFixture } from './support/git-fixture';
import { BOB, CAROL, eventually, GINA, Stack, TEST_CONFIG, TEST_IDP } from './support/harness';
import { Forwarder, followAuthorize, type OAuthServer, startOAuthServer } from './support/oauth';

const REDIRECT_URI = 'https://svc.test/v1/oauth/callback';
const CLIENT = { clientId: 'svc-test', clientSecret: 'oauth-client-secret', redirectUri: REDIRECT_URI };
const START = { codehost: '/v1/codehost-connections:startOAuth', chat: '/v1/chat-connections:startOAuth', tracker: '/v1/tracker-connections:startOAuth' };
const REGISTER_PAGER = '/v1/pager-connections:registerWebhook';
const PD_SECRET = 'pd-signing-secret';

interface Started {
  authorizeUrl: string;
  state: string;
  expiresAt: string;
}
interface Connection {
  name: string;
  displayName: string;
  connectionType: string;
  connectionDetails: Record<string, Record<string, unknown>>;
}
interface Registration {
  webhookUrl: string;
  webhookToken: string;
}

const idpToken = (sub: string) =>
  new SignJWT({ tenant: 'acme' })
    .setProtectedHeader({ alg: 'ES256' })
    .setIssuer(TEST_IDP.issuer)
    .setAudience('svc')
    .setSubject(sub)
    .setExpirationTime('5m')
    .sign(TEST_IDP.privateKey);

function config(issuer: string, githubUrl: string, pagerDetails = ''): string {
  const app = (provider: string, details = '') =>
    `{provider: ${provider}, issuer: "${issuer}", client_id: ${CLIENT.clientId}, client_secret: "\${env:OAUTH_CLIENT_SECRET}", scopes: [openid]${details}}`;
  return `${TEST_CONFIG.replace(
    '      - id: pagerduty\n        type: CONNECTION_TYPE_PAGER\n',
    `      - id: pagerduty
        type: CONNECTION_TYPE_PAGER${pagerDetails}
      - id: gh
        display_name: GitHub
        type: CONNECTION_TYPE_CODEHOST
        details: {codehost: {provider: github, api_url: "${githubUrl}"}}
      - id: incidents
        type: CONNECTION_TYPE_INCIDENTMGR
`,
  ).replace(
    '    connections:\n      - id: ledger\n',
    `    connections:
      - id: gh
        type: CONNECTION_TYPE_CODEHOST
        details: {codehost: {provider: github, api_url: "${githubUrl}"}}
      - id: ledger\n`,
  )}integrations:
  url: https://hooks.test/
  oauth:
    redirect_uri: ${REDIRECT_URI}
    codehost: ${app('github', `, details: {api_url: "${githubUrl}"}, display_name: GitHub`)}
    chat: ${app('slack')}
    tracker: ${app('jira')}
`;
}

describe('integration helpers that change connections', () => {
  let stack: Stack;
  let oauth: OAuthServer;
  let github: FakeGitHub | undefined;
  const forwarder = new Forwarder();
  const fixture = new GitFixture();
  let githubUrl = '';
  /** Every clear token the tests saw, checked against the stored events and the logs at the end. */
  const tokens: string[] = [];

  beforeAll(async () => {
    fixture.repo('acme/app').commit('first', { 'README.md': '# app\n' });
    [oauth, githubUrl] = await Promise.all([startOAuthServer(CLIENT), forwarder.start()]);
    stack = await Stack.start({ config: config(oauth.issuer, githubUrl), env: { OAUTH_CLIENT_SECRET: CLIENT.clientSecret } });
  });
  afterAll(async () => {
    await Promise.all([stack?.destroy(), oauth?.stop(), forwarder.stop(), github?.stop()]);
    fixture.remove();
  });

  /** The callback as the browser reaches it (its 303 not followed: the return path is the UI's). */
  const callbackWith = async (search: string) => {
    const res = await fetch(`${stack.baseUrl}/v1/oauth/callback${search}`, { redirect: 'manual' });
    return { status: res.status, headers: res.headers, body: (await res.json()) as { connection: string; returnPath: string; error?: Record<string, unknown> } };
  };

  /** Start → the authorization server → the callback, as `as`; answers the callback's response. */
  async function authorize(kind: keyof typeof START, body: Record<string, unknown> = {}, as = undefined as typeof GINA | undefined) {
    const started = await stack.request<Started>('POST', START[kind], { body, as });
    expect(started.status).toBe(200);
    const back = await followAuthorize(started.body.authorizeUrl, REDIRECT_URI);
    const callback = await callbackWith(back.search);
    return { started: started.body, back, callback };
  }
  const getConnection = (id: string, as = undefined as typeof BOB | undefined) => stack.request<{ connection: Connection }>('GET', `/v1/connections/${id}`, { as });

  describe('StartCodehostOAuth, StartChatOAuth, StartTrackerOAuth and the callback', () => {
    it('answers an authorize URL of the configured app with a signed state and a PKCE challenge', async () => {
      const res = await stack.request<Started>('POST', START.codehost, { body: {} });
      expect(res.status).toBe(200);
      const url = new URL(res.body.authorizeUrl);
      expect(url.origin).toBe(oauth.issuer);
      expect(Object.fromEntries(url.searchParams)).toEqual({
        client_id: 'svc-test',
        redirect_uri: REDIRECT_URI,
        response_type: 'code',
        scope: 'openid',
        state: res.body.state,
        code_challenge: expect.stringMatching(/^[\w-]{43}$/),
        code_challenge_method: 'S256',
      });
      expect(Date.parse(res.body.expiresAt) - Date.now()).toBeGreaterThan(500_000);
    });

    it('creates a code-host connection with the token sealed, which then reads the repositories through it', async () => {
      const { callback } = await authorize('codehost');
      expect(callback.status).toBe(303);
      const name = callback.body.connection;
      expect(name).toMatch(/^connections\/github-[0-9a-f]{8}$/);
      expect(callback.body.returnPath).toBe(`/integrations/connections?connection=${encodeURIComponent(name)}`);
      const got = await getConnection(name.split('/')[1]);
      expect(got.body.connection).toMatchObject({ displayName: 'GitHub', connectionType: 'CONNECTION_TYPE_CODEHOST' });
      const token = String(got.body.connection.connectionDetails.codehost.token);
      expect(got.body.connection.connectionDetails.codehost).toEqual({ provider: 'github', apiUrl: githubUrl, token });
      tokens.push(token);
      // The token is the one the authorization server issued: the code host accepts it.
      github = new FakeGitHub(fixture.root, token);
      forwarder.target = await github.start();
      const repos = await stack.request<{ repositories: Array<{ fullName: string }> }>('POST', '/v1/codehost-connections:listRepositories', { body: { connection_name: name } });
      expect(repos.status).toBe(200);
      expect(repos.body.repositories.map((r) => r.fullName)).toEqual(['acme/app']);
      // Secrets only to INTEGRATIONS_WRITE holders; never in a list.
      expect((await getConnection(name.split('/')[1], BOB)).body.connection.connectionDetails).toEqual({ codehost: { provider: 'github', apiUrl: githubUrl } });
      const list = await stack.request('GET', '/v1/connections?page_size=100');
      expect(JSON.stringify(list.body)).not.toContain(token);
      expect(JSON.stringify(list.body)).toContain(name);
    });

    it('re-authorizes a configured connection, back to the return path; re-applying the configuration keeps the token', async () => {
      const { callback } = await authorize('codehost', { connection_name: 'connections/gh', return_path: '/settings/gh?tab=auth' });
      expect(callback.status).toBe(303);
      expect(callback.headers.get('location')).toBe('/settings/gh?tab=auth&connection=connections%2Fgh');
      const token = String((await getConnection('gh')).body.connection.connectionDetails.codehost.token);
      expect(token).toMatch(/\S{20,}/);
      tokens.push(token);
      const file = path.join(stack.dataDir, 'reapply.yaml');
      fs.writeFileSync(file, config(oauth.issuer, githubUrl).replace('      - id: gh\n        display_name: GitHub\n', '      - id: gh\n        display_name: GitHub (renamed)\n'));
      expect((await stack.cli('config', 'apply', file)).code).toBe(0);
      const renamed = await eventually(async () => {
        const c = (await getConnection('gh')).body.connection;
        return c.displayName === 'GitHub (renamed)' ? c : undefined;
      });
      expect(renamed.connectionDetails.codehost).toEqual({ provider: 'github', apiUrl: githubUrl, token });
    });

    it('seals chat and tracker tokens where their adapters read them', async () => {
      const chat = await authorize('chat');
      const tracker = await authorize('tracker');
      const chatDetails = (await getConnection(chat.callback.body.connection.split('/')[1])).body.connection;
      const trackerDetails = (await getConnection(tracker.callback.body.connection.split('/')[1])).body.connection;
      expect(chatDetails).toMatchObject({ connectionType: 'CONNECTION_TYPE_CHAT', connectionDetails: { chat: { provider: 'slack', botToken: expect.any(String) } } });
      expect(trackerDetails).toMatchObject({ connectionType: 'CONNECTION_TYPE_TRACKER', connectionDetails: { tracker: { provider: 'jira', token: expect.any(String) } } });
      tokens.push(String(chatDetails.connectionDetails.chat.botToken), String(trackerDetails.connectionDetails.tracker.token));
    });

    it('refuses a replayed state, before asking the provider', async () => {
      const { back, callback } = await authorize('tracker');
      expect(callback.status).toBe(303);
      const again = await callbackWith(back.search);
      expect(again.status).toBe(400);
      expect(again.body).toMatchObject({ error: { status: 'FAILED_PRECONDITION', details: [expect.objectContaining({ reason: 'OAUTH_STATE_USED' }), expect.anything()] } });
    });

    it('refuses a tampered state and an expired one', async () => {
      const started = await stack.request<Started>('POST', START.codehost, { body: {} });
      const back = await followAuthorize(started.body.authorizeUrl, REDIRECT_URI);
      const [header, payload, signature] = started.body.state.split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
      const forged = Buffer.from(JSON.stringify({ ...claims, org: 'globex' })).toString('base64url');
      const tampered = new URLSearchParams(back.search);
      tampered.set('state', `${header}.${forged}.${signature}`);
      const refused = await callbackWith(`?${tampered}`);
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({ error: { status: 'UNAUTHENTICATED', message: expect.stringContaining('not valid') } });
      // Signed with the deployment's own key, but issued eleven minutes ago.
      const states = new OAuthStates(loadMasterKey(stack.dataDir, {}), 600);
      const old = await states.issue({ org: 'acme', subject: 'users/alice', kind: 'codehost', connection: '', returnPath: '/' }, new Date(Date.now() - 11 * 60_000));
      const expired = new URLSearchParams(back.search);
      expired.set('state', old.state);
      const late = await callbackWith(`?${expired}`);
      expect(late.status).toBe(401);
      expect(late.body).toMatchObject({ error: { message: expect.stringContaining('expired'), details: [expect.objectContaining({ reason: 'OAUTH_STATE_EXPIRED' }), expect.anything()] } });
      // The untouched state still works once.
      expect((await callbackWith(back.search)).status).toBe(303);
    });

    it('keeps organizations apart: another organization\'s state writes its own connection, and cannot name acme\'s', async () => {
      const before = (await getConnection('gh')).body.connection.connectionDetails.codehost.token;
      const { callback } = await authorize('codehost', { connection_name: 'connections/gh' }, GINA);
      expect(callback.status).toBe(303);
      const globex = await getConnection('gh', GINA);
      expect(globex.body.connection.connectionDetails.codehost.token).toEqual(expect.any(String));
      expect(globex.body.connection.connectionDetails.codehost.token).not.toEqual(before);
      tokens.push(String(globex.body.connection.connectionDetails.codehost.token));
      expect((await getConnection('gh')).body.connection.connectionDetails.codehost.token).toEqual(before);
      const foreign = await stack.request('POST', START.codehost, { body: { connection_name: 'connections/github' }, as: GINA });
      expect(foreign.status).toBe(404);
    });

    it('refuses the callback when the caller who started lost INTEGRATIONS_WRITE meanwhile', async () => {
      const assign = (roles: string[]) => stack.rpc('svc.rbac.v1.RolesService/AssignRoles', { user: 'users/carol', roles });
      expect((await assign(['roles/admin'])).status).toBe(200);
      const started = await stack.request<Started>('POST', START.tracker, { body: {}, as: CAROL });
      expect(started.status).toBe(200);
      const back = await followAuthorize(started.body.authorizeUrl, REDIRECT_URI);
      expect((await assign([])).status).toBe(200);
      const refused = await callbackWith(back.search);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ status: 'PERMISSION_DENIED', message: expect.stringContaining('INTEGRATIONS_WRITE') });
    });

    it('needs INTEGRATIONS_WRITE, a connection of the right type and a relative return path', async () => {
      const bob = await stack.request('POST', START.codehost, { body: {}, as: BOB });
      expect(bob.status).toBe(403);
      expect((await stack.request('POST', START.chat, { body: { connection_name: 'connections/gh' } })).status).toBe(400);
      for (const returnPath of ['https://evil.example/', '//evil.example/x', 'relative', '/\\evil.example']) {
        const res = await stack.request('POST', START.codehost, { body: { return_path: returnPath } });
        expect(res.status).toBe(400);
      }
    });
  });

  describe('RegisterPagerWebhook, RegisterIncidentMgrWebhook and the deliveries', () => {
    const register = async (as: 'bearer-alice' | 'bearer-bob' | 'basic', body: Record<string, unknown> = { connection_name: 'connections/pagerduty' }) => {
      const headers = as === 'basic' ? undefined : { authorization: `Bearer ${await idpToken(as === 'bearer-alice' ? 'alice' : 'bob')}` };
      return stack.request<Registration>('POST', REGISTER_PAGER, { body, as: as === 'basic' ? undefined : null, headers });
    };
    const deliver = (url: string, body: string, signature?: string) =>
      fetch(url.replace('https://hooks.test', stack.baseUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(signature ? { 'x-pagerduty-signature': signature } : {}) },
        body,
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));
    // PagerDuty's v3 envelope and `X-PagerDuty-Signature` as documented: https://developer.pagerduty.com/docs/webhooks/v3-overview
    // and .../webhook-signatures (github.com/PagerDuty/developer-docs, docs/webhooks/04-Signatures.md).
    const event = (id: string) => JSON.stringify({ event: { id, event_type: 'incident.triggered', resource_type: 'incident', occurred_at: '2026-01-01T00:00:00Z', data: { id: 'P1' } } });
    const registrations: Registration[] = [];

    it('accepts only a bearer JWT holding INTEGRATIONS_WRITE', async () => {
      const basic = await register('basic');
      expect(basic.status).toBe(401);
      expect(basic.body).toMatchObject({ error: { status: 'UNAUTHENTICATED', message: expect.stringContaining('Bearer') } });
      expect((await register('bearer-bob')).status).toBe(403);
      expect((await register('bearer-alice', { connection_name: 'connections/nope' })).status).toBe(404);
      expect((await register('bearer-alice', { connection_name: 'connections/slack' })).status).toBe(400);
    });

    it('mints a URL under {integrations_url} ending in the token, answered once', async () => {
      const res = await register('bearer-alice');
      expect(res.status).toBe(200);
      expect(res.body.webhookUrl).toBe(`https://hooks.test/v1/webhooks/pager/${res.body.webhookToken}`);
      expect(res.body.webhookToken).toMatch(/^[\w-]{43}$/);
      registrations.push(res.body);
      tokens.push(res.body.webhookToken);
    });

    it('refuses deliveries clearly until a signing secret is configured, then verifies the PagerDuty signature', async () => {
      const [first] = registrations;
      const early = await deliver(first.webhookUrl, event('E0'), pagerSignature(PD_SECRET, event('E0')));
      expect(early.status).toBe(400);
      expect(early.body).toMatchObject({ error: { status: 'FAILED_PRECONDITION', message: expect.stringContaining('signing secret') } });
      const file = path.join(stack.dataDir, 'with-secret.yaml');
      fs.writeFileSync(file, config(oauth.issuer, githubUrl, `\n        details: {pager: {signing_secret: "${PD_SECRET}"}}`));
      expect((await stack.cli('config', 'apply', file)).code).toBe(0);
      const accepted = await eventually(async () => {
        const res = await deliver(first.webhookUrl, event('E1'), pagerSignature(PD_SECRET, event('E1')));
        return res.status === 200 ? res : undefined;
      });
      expect(accepted.body).toEqual({ connection: 'connections/pagerduty', eventType: 'incident.triggered' });
      expect((await deliver(first.webhookUrl, event('E2'), pagerSignature('wrong-secret', event('E2')))).status).toBe(401);
      expect((await deliver(first.webhookUrl, event('E2'))).status).toBe(401);
      // PagerDuty sends two signatures while it rotates its own secret; one match is enough.
      expect((await deliver(first.webhookUrl, event('E3'), `${pagerSignature('old', event('E3'))},${pagerSignature(PD_SECRET, event('E3'))}`)).status).toBe(200);
      expect((await deliver(first.webhookUrl.replace(/[\w-]+$/, 'x'.repeat(43)), event('E4'), pagerSignature(PD_SECRET, event('E4')))).status).toBe(404);
    });

    it('rotates: the previous token stays valid after a new registration, the one before it does not', async () => {
      const second = (await register('bearer-alice')).body;
      const third = (await register('bearer-alice')).body;
      registrations.push(second, third);
      tokens.push(second.webhookToken, third.webhookToken);
      const status = async (r: Registration, id: string) => (await deliver(r.webhookUrl, event(id), pagerSignature(PD_SECRET, event(id)))).status;
      expect(await status(third, 'R3')).toBe(200);
      expect(await status(second, 'R2')).toBe(200);
      expect(await status(registrations[0], 'R1')).toBe(404);
    });

    it('RegisterIncidentMgrWebhook registers on an incident-manager connection named in the path', async () => {
      const res = await stack.request<Registration>('POST', '/v1/connections/incidents:registerIncidentmgrWebhook', { body: {} });
      expect(res.status).toBe(200);
      expect(res.body.webhookUrl).toBe(`https://hooks.test/v1/webhooks/incidentmgr/${res.body.webhookToken}`);
      tokens.push(res.body.webhookToken);
      expect((await stack.request('POST', '/v1/connections/pagerduty:registerIncidentmgrWebhook', { body: {} })).status).toBe(400);
      expect((await stack.request('POST', '/v1/connections/incidents:registerIncidentmgrWebhook', { body: {}, as: BOB })).status).toBe(403);
      expect((await stack.request('POST', '/v1/connections/incidents:registerIncidentmgrWebhook', { body: {}, as: GINA })).status).toBe(404);
      // A pager URL's token is no incident manager's.
      expect((await deliver(res.body.webhookUrl.replace('/incidentmgr/', '/pager/'), event('X'), pagerSignature(PD_SECRET, event('X')))).status).toBe(404);
    });
  });

  it('no token is stored in an event or written to a log in clear', async () => {
    expect(tokens.length).toBeGreaterThanOrEqual(9);
    const events = await stack.cli('events', '--limit', '10000', '--json');
    expect(events.code).toBe(0);
    const types = (JSON.parse(events.stdout) as { events: Array<{ type: string }> }).events.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['ConnectionAuthorized', 'ConnectionWebhookRegistered', 'WebhookDeliveryReceived']));
    const logs = stack.output.join('');
    for (const token of tokens) {
      expect(events.stdout).not.toContain(token);
      expect(logs).not.toContain(token);
    }
    expect(events.stdout).not.toContain(CLIENT.clientSecret);
  });
});
