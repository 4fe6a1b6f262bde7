/**
 * The pager, tracker and identity-provider ports through the real api and projector, each vendor a
 * local server answering as its reference documents (test/support/fake-*.ts):
 * - HandleTrackerEvent: GitHub issue deliveries verified over the raw body against the tracker
 *   connections of the delivery's repository, in whichever organization;
 * - CreateOrganizationInvitation: an Auth0 organization invitation, MEMBERS_WRITE, idp connections only,
 *   the vendor's failures mapped;
 * - TOOL_PAGER_CREATE_INCIDENT and TOOL_TRACKER_CREATE_TICKET run by a session of the built-in runtime.
 */
import { createEventStore } from '@svc/infrastructure/event-store';
import { FakeAuth0 } from './support/fake-auth0';
import { FakeGitHubIssues } from './support/fake-github-issues';
import { FakePagerDuty } from './support/fake-pagerduty';
import { githubDelivery, issueEvent } from './support/github-issue-events';
import { ALICE, BOB, type Credentials, eventually, MACHINE, Stack, TEST_CONFIG } from './support/harness';

const S = 'svc.nxagent.v2.AgentService';
const ACTIVITY = 'type.googleapis.com/svc.nxagent.v1.Activity';
const TRACKER_ROUTE = '/v1/tracker-connections:handleEvent';
const INVITE_ROUTE = '/v1/idp-connections:createOrganizationInvitation';

const GITHUB_TOKEN = 'ghp_e2e_tracker_token_4f1c';
const ACME_HOOK_SECRET = 'acme-tracker-webhook-secret';
const GLOBEX_HOOK_SECRET = 'globex-tracker-webhook-secret';
const ROUTING_KEY = 'e2e0123456789abcdef0123456789abc';
const AUTH0 = { id: 'm2m-e2e-client', secret: 'm2m-e2e-client-secret-9d2a' };
const AUTH0_ORG = 'org_acme_e2e';

describe('pager, tracker and identity-provider ports (HandleTrackerEvent, CreateOrganizationInvitation, the agent tools)', () => {
  let stack: Stack;
  const github = new FakeGitHubIssues(GITHUB_TOKEN, ['acme/ops']);
  const pagerduty = new FakePagerDuty([ROUTING_KEY]);
  const auth0 = new FakeAuth0(AUTH0, [AUTH0_ORG]);

  beforeAll(async () => {
    const [githubUrl, pagerUrl, auth0Url] = await Promise.all([github.start(), pagerduty.start(), auth0.start()]);
    const idp = (id: string, secret: string, org = AUTH0_ORG) => `      - id: ${id}
        type: CONNECTION_TYPE_IDP
        details: {idp: {provider: auth0, domain: acme.eu.auth0.com, client_id: ${AUTH0.id}, client_secret: "${secret}", organization_id: ${org}, application_client_id: app-e2e, api_url: "${auth0Url}"}}
`;
    const acme = `      - id: issues
        type: CONNECTION_TYPE_TRACKER
        details: {tracker: {provider: github-issues, api_url: "${githubUrl}", token: "${GITHUB_TOKEN}", repository: acme/ops, webhook_secret: "${ACME_HOOK_SECRET}"}}
      - id: pd
        type: CONNECTION_TYPE_PAGER
        details: {pager: {provider: pagerduty, routing_key: "${ROUTING_KEY}", api_url: "${pagerUrl}"}}
${idp('auth0', AUTH0.secret)}${idp('auth0-revoked', 'a-revoked-client-secret-77')}${idp('auth0-gone', AUTH0.secret, 'org_deleted')}      - id: pagerduty
`;
    const globex = `      - id: globex-issues
        type: CONNECTION_TYPE_TRACKER
        details: {tracker: {provider: github-issues, token: "ghp_globex", repository: acme/ops, webhook_secret: "${GLOBEX_HOOK_SECRET}"}}
      - id: ledger
`;
    stack = await Stack.start({ config: TEST_CONFIG.replace('      - id: pagerduty\n', acme).replace('      - id: ledger\n', globex) });
  }, 90_000);
  afterAll(async () => {
    await stack?.destroy();
    await Promise.all([github.stop(), pagerduty.stop(), auth0.stop()]);
  });

  describe('HandleTrackerEvent', () => {
    const deliver = (body: unknown, secret: string | null, options: { as?: Credentials | null; tamper?: (raw: string) => string } = {}) => {
      const { raw, headers } = githubDelivery(body, secret);
      return stack.request<Record<string, unknown>>('POST', TRACKER_ROUTE, { as: options.as === undefined ? MACHINE : options.as, rawBody: options.tamper ? options.tamper(raw) : raw, headers });
    };

    it('answers a delivery signed with a connection’s webhook secret: the parsed event and the connection that verified and recorded it; a replay is recorded once', async () => {
      const { raw, headers } = githubDelivery(issueEvent('acme/ops', 'opened', 12, 'Checkout is down'), ACME_HOOK_SECRET);
      const send = () => stack.request<Record<string, unknown>>('POST', TRACKER_ROUTE, { as: MACHINE, rawBody: raw, headers });
      const res = await send();
      expect(res.status).toBe(200);
      const delivery = headers['x-github-delivery'];
      const event = {
        delivery,
        kind: 'issues',
        action: 'opened',
        project: 'acme/ops',
        ticket: { id: '2000012', key: '#12', url: 'https://github.com/acme/ops/issues/12', title: 'Checkout is down', state: 'open' },
        actor: 'octocat',
      };
      expect(res.body).toEqual({ event, verifiedBy: [{ organization: 'acme', connection: 'connections/issues', recorded: true }] });
      // The same delivery again (GitHub's redelivery, or a captured one replayed: GitHub signs no timestamp).
      const again = await send();
      expect(again.status).toBe(200);
      expect(again.body.verifiedBy).toEqual([{ organization: 'acme', connection: 'connections/issues', recorded: false }]);
      const store = createEventStore({ SVC_DATA_DIR: stack.dataDir });
      try {
        const events = await store.readStream(`trackerdelivery-acme:connections/issues/deliveries/${delivery}`);
        expect(events.map((e) => [e.type, e.data])).toEqual([['TrackerDeliveryRecorded', { ...event, connection: 'connections/issues', receiveTime: expect.any(String) }]]);
        expect(JSON.stringify(events.map((e) => [e.data, e.metadata]))).not.toContain(ACME_HOOK_SECRET);
      } finally {
        await store.close();
      }
    });

    it('finds the connections of the repository in any organization, and only the one whose secret signed it verifies it', async () => {
      const res = await deliver(issueEvent('acme/ops', 'closed', 12, 'Checkout is down'), GLOBEX_HOOK_SECRET);
      expect(res.status).toBe(200);
      expect(res.body.verifiedBy).toEqual([{ organization: 'globex', connection: 'connections/globex-issues', recorded: true }]);
    });

    it('refuses an unsigned delivery, a forged signature, a body changed after signing, and a repository no connection has', async () => {
      const unsigned = await deliver(issueEvent('acme/ops', 'opened', 1, 'x'), null);
      expect(unsigned.status).toBe(401);
      expect(unsigned.body).toMatchObject({ error: { status: 'UNAUTHENTICATED', message: expect.stringMatching(/no tracker signature/) } });
      const forged = await deliver(issueEvent('acme/ops', 'opened', 1, 'x'), 'guessed-secret');
      expect(forged.status).toBe(401);
      expect(forged.body).toMatchObject({ error: { status: 'UNAUTHENTICATED', message: expect.stringMatching(/does not match/) } });
      const tampered = await deliver(issueEvent('acme/ops', 'opened', 1, 'harmless'), ACME_HOOK_SECRET, { tamper: (raw) => raw.replace('harmless', 'evil') });
      expect(tampered.status).toBe(401);
      const elsewhere = await deliver(issueEvent('other/repo', 'opened', 1, 'x'), ACME_HOOK_SECRET);
      expect(elsewhere.status).toBe(401);
      const noProject = await deliver({ action: 'opened' }, ACME_HOOK_SECRET);
      expect(noProject.status).toBe(400);
    });

    it('takes machine credentials only', async () => {
      for (const as of [ALICE, null]) {
        const res = await deliver(issueEvent('acme/ops', 'opened', 1, 'x'), ACME_HOOK_SECRET, { as });
        expect(res.status).toBe(401);
        expect(res.body).toMatchObject({ error: { status: 'UNAUTHENTICATED', message: expect.stringMatching(/machine credentials/) } });
      }
    });
  });

  describe('CreateOrganizationInvitation', () => {
    const invite = (body: Record<string, unknown>, as: Credentials = ALICE) => stack.request<Record<string, unknown>>('POST', INVITE_ROUTE, { as, body });

    it('invites someone at the identity provider and answers the invitation link and expiry', async () => {
      const res = await invite({ connection_name: 'connections/auth0', email: 'erin@acme.example', ttl_seconds: 86_400 });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        invitation: {
          id: expect.stringMatching(/^uinv_/),
          invitationUrl: expect.stringMatching(/^https:\/\/.*invitation=/),
          email: 'erin@acme.example',
          inviter: 'users/alice',
          createTime: expect.any(String),
          expireTime: expect.any(String),
        },
      });
      const sent = auth0.invitations.at(-1)!;
      expect(sent).toMatchObject({ organization_id: AUTH0_ORG, invitee: { email: 'erin@acme.example' }, inviter: { name: 'users/alice' }, client_id: 'app-e2e' });
      const ttl = Date.parse(String((res.body.invitation as Record<string, string>).expireTime)) - Date.parse(String((res.body.invitation as Record<string, string>).createTime));
      expect(ttl).toBe(86_400_000);
    });

    it('needs MEMBERS_WRITE: a member without it is refused before the provider is called', async () => {
      const calls = auth0.requests.length;
      const res = await invite({ connection_name: 'connections/auth0', email: 'mallory@acme.example' }, BOB);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: { status: 'PERMISSION_DENIED' } });
      expect(auth0.requests.length).toBe(calls);
    });

    it('takes identity-provider connections of the caller’s organization only', async () => {
      expect((await invite({ connection_name: 'connections/github', email: 'a@acme.example' })).body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringMatching(/not an identity-provider connection/) } });
      expect((await invite({ connection_name: 'connections/ledger', email: 'a@acme.example' })).status).toBe(404);
      expect((await invite({ connection_name: 'connections/auth0', email: 'a@acme.example', ttl_seconds: 0 })).status).toBe(400);
    });

    it("maps the provider's failures: its validation INVALID_ARGUMENT, refused credentials and an unknown organization FAILED_PRECONDITION, its rate limit UNAVAILABLE; no secret in any answer", async () => {
      const invalid = await invite({ connection_name: 'connections/auth0', email: 'erin@localhost' });
      expect(invalid.status).toBe(400);
      expect(invalid.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringMatching(/invitee\.email/) } });
      const revoked = await invite({ connection_name: 'connections/auth0-revoked', email: 'erin@acme.example' });
      expect(revoked.status).toBe(400);
      expect(revoked.body).toMatchObject({ error: { status: 'FAILED_PRECONDITION', message: expect.stringMatching(/refused the connection's client credentials/) } });
      const gone = await invite({ connection_name: 'connections/auth0-gone', email: 'erin@acme.example' });
      expect(gone.body).toMatchObject({ error: { status: 'FAILED_PRECONDITION', message: expect.stringMatching(/No organization found/) } });
      auth0.rateLimited = true;
      try {
        const limited = await invite({ connection_name: 'connections/auth0', email: 'erin@acme.example' });
        expect(limited.status).toBe(503);
        expect(limited.body).toMatchObject({ error: { status: 'UNAVAILABLE' } });
      } finally {
        auth0.rateLimited = false;
      }
      for (const secret of [AUTH0.secret, 'a-revoked-client-secret-77']) {
        expect(JSON.stringify([invalid.body, revoked.body, gone.body])).not.toContain(secret);
        expect(stack.output.join('')).not.toContain(secret);
      }
    });
  });

  describe('the agent tools TOOL_PAGER_CREATE_INCIDENT and TOOL_TRACKER_CREATE_TICKET', () => {
    it('a session of the built-in runtime opens an incident and a ticket, which the vendors record', async () => {
      const agent = {
        prompt: 'You escalate.',
        connections: [
          { name: 'connections/pd', enabled_tools: ['TOOL_PAGER_CREATE_INCIDENT'] },
          { name: 'connections/issues', enabled_tools: ['TOOL_TRACKER_CREATE_TICKET'] },
        ],
      };
      expect((await stack.rpc(`${S}/CreateAgent`, { agent_id: 'escalator', agent })).status).toBe(200);
      const text = [
        'Checkout is down: page and file it.',
        '/tool TOOL_PAGER_CREATE_INCIDENT {"title": "Checkout is down", "severity": "critical", "dedup_key": "checkout-down"}',
        '/tool TOOL_TRACKER_CREATE_TICKET {"title": "Follow up: checkout outage", "description": "Opened by the escalator agent", "labels": ["incident"]}',
      ].join('\n');
      const write = await stack.rpc<{ session: string }>(`${S}/Write`, { parent: 'agents/escalator', messages: [{ '@type': ACTIVITY, user: { text: { text } } }] });
      expect(write.status).toBe(200);
      const read = await eventually(async () => {
        const res = await stack.rpc<{ status: string; sessionLength: number; messages: Array<Record<string, unknown>> }>(`${S}/Read`, { session: write.body.session });
        return res.body.status === 'STATUS_WAITING' && res.body.sessionLength === 4 ? res.body : undefined;
      }, 30_000);
      const calls = (read.messages[1].assistant as { toolCalls: Array<{ id: string; name: string }> }).toolCalls;
      const results = (read.messages[2].user as { toolResults: Array<{ toolCallId: string; content: string }> }).toolResults;
      const resultOf = (tool: string) => JSON.parse(results.find((r) => r.toolCallId === calls.find((c) => c.name === tool)!.id)!.content) as Record<string, unknown>;
      expect(resultOf('TOOL_PAGER_CREATE_INCIDENT')).toEqual({ incident: { dedupKey: 'checkout-down', title: 'Checkout is down', severity: 'critical', status: 'triggered' }, message: 'Event processed' });
      expect(resultOf('TOOL_TRACKER_CREATE_TICKET')).toEqual({ ticket: { key: '#1', url: 'https://github.com/acme/ops/issues/1', title: 'Follow up: checkout outage', state: 'open' } });
      expect(pagerduty.alerts.get('checkout-down')).toMatchObject({ routing_key: ROUTING_KEY, event_action: 'trigger', payload: { summary: 'Checkout is down', severity: 'critical' } });
      expect(github.issues.get('acme/ops')).toEqual([expect.objectContaining({ title: 'Follow up: checkout outage', body: 'Opened by the escalator agent', labels: [{ name: 'incident' }] })]);
      // The session never carries the routing key or the token.
      expect(JSON.stringify(read.messages)).not.toContain(ROUTING_KEY);
      expect(JSON.stringify(read.messages)).not.toContain(GITHUB_TOKEN);
    });

    it('an incognito session never pages: the call is stubbed and PagerDuty hears nothing', async () => {
      const calls = pagerduty.requests.length;
      const created = await stack.rpc<{ session: { name: string } }>(`${S}/CreateSession`, { parent: 'agents/escalator', incognito: true });
      expect(created.status).toBe(200);
      const session = created.body.session.name;
      const text = '/tool TOOL_PAGER_CREATE_INCIDENT {"title": "Only a drill"}';
      expect((await stack.rpc(`${S}/Write`, { session, messages: [{ '@type': ACTIVITY, user: { text: { text } } }] })).status).toBe(200);
      const read = await eventually(async () => {
        const res = await stack.rpc<{ status: string; sessionLength: number; messages: Array<Record<string, unknown>> }>(`${S}/Read`, { session });
        return res.body.status === 'STATUS_WAITING' && res.body.sessionLength === 4 ? res.body : undefined;
      }, 30_000);
      const content = (read.messages[2].user as { toolResults: Array<{ content: string }> }).toolResults[0].content;
      expect(JSON.parse(content)).toMatchObject({ stubbed: true });
      expect(pagerduty.requests.length).toBe(calls);
    });

    it("a vendor's refusal reaches the model as an honest error without the credential", async () => {
      github.issuesDisabled.add('acme/ops');
      try {
        const text = '/tool TOOL_TRACKER_CREATE_TICKET {"title": "Another one"}';
        const write = await stack.rpc<{ session: string }>(`${S}/Write`, { parent: 'agents/escalator', messages: [{ '@type': ACTIVITY, user: { text: { text } } }] });
        const read = await eventually(async () => {
          const res = await stack.rpc<{ status: string; sessionLength: number; messages: Array<Record<string, unknown>> }>(`${S}/Read`, { session: write.body.session });
          return res.body.status === 'STATUS_WAITING' && res.body.sessionLength === 4 ? res.body : undefined;
        }, 30_000);
        const content = (read.messages[2].user as { toolResults: Array<{ content: string }> }).toolResults[0].content;
        expect(JSON.parse(content)).toEqual({ error: 'FAILED_PRECONDITION', message: expect.stringMatching(/Issues are disabled for this repo/) });
        expect(content).not.toContain(GITHUB_TOKEN);
      } finally {
        github.issuesDisabled.delete('acme/ops');
      }
    });
  });
});
