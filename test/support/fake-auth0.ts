/**
 * A local stand-in for an Auth0 tenant, answering as Auth0's references document:
 * - POST /oauth/token, client credentials (https://auth0.com/docs/api/authentication#client-credentials-flow):
 *   200 `{access_token, scope, expires_in, token_type: "Bearer"}`; wrong client credentials 401
 *   `{error: "access_denied", error_description: "Unauthorized"}`;
 * - POST /api/v2/organizations/{id}/invitations
 *   (https://auth0.com/docs/api/management/v2/organizations/post-invitations): `inviter.name`,
 *   `invitee.email`, `client_id` required, `ttl_sec` 0..2592000 (0 or absent: 7 days); 201 with
 *   `{id: "uinv_…", organization_id, inviter, invitee, invitation_url, created_at, expires_at, client_id,
 *   connection_id, roles, ticket_id}`;
 * - Management API errors `{statusCode, error, message, errorCode}`: 400 `invalid_body` (payload
 *   validation), 401 `Invalid token`, 404 `inexistent_organization`;
 * - `rateLimited = true`: 429 `too_many_requests` with `x-ratelimit-limit`, `x-ratelimit-remaining: 0`,
 *   `x-ratelimit-reset` (https://auth0.com/docs/troubleshoot/customer-support/operational-policies/rate-limit-policy).
 */
import { randomBytes } from 'node:crypto';
import { FakeServer, jsonOf, type Answer, type RecordedRequest } from './fake-server';

const mgmtError = (statusCode: number, error: string, message: string, errorCode?: string): Answer => ({
  status: statusCode,
  body: { statusCode, error, message, ...(errorCode ? { errorCode } : {}) },
});

export class FakeAuth0 extends FakeServer {
  readonly invitations: Array<Record<string, unknown>> = [];
  private readonly tokens = new Set<string>();
  rateLimited = false;

  constructor(
    private readonly client: { id: string; secret: string },
    private readonly organizations: readonly string[],
  ) {
    super();
  }

  protected answer(request: RecordedRequest): Answer {
    if (request.method === 'POST' && request.path === '/oauth/token') return this.token(new URLSearchParams(request.body));
    const auth = String(request.headers.authorization ?? '');
    if (!auth.startsWith('Bearer ') || !this.tokens.has(auth.slice('Bearer '.length))) return mgmtError(401, 'Unauthorized', 'Invalid token');
    if (this.rateLimited) {
      const answer = mgmtError(429, 'Too Many Requests', 'Global limit has been reached', 'too_many_requests');
      return { ...answer, headers: { 'x-ratelimit-limit': '50', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 1) } };
    }
    const match = /^\/api\/v2\/organizations\/([^/]+)\/invitations$/.exec(request.path);
    if (request.method !== 'POST' || !match) return mgmtError(404, 'Not Found', 'Not Found');
    const org = decodeURIComponent(match[1]);
    if (!this.organizations.includes(org)) return mgmtError(404, 'Not Found', 'No organization found by that id or name', 'inexistent_organization');
    return this.invite(org, jsonOf(request) ?? {});
  }

  private token(form: URLSearchParams): Answer {
    if (form.get('grant_type') !== 'client_credentials' || form.get('client_id') !== this.client.id || form.get('client_secret') !== this.client.secret) {
      return { status: 401, body: { error: 'access_denied', error_description: 'Unauthorized' } };
    }
    const token = randomBytes(24).toString('base64url');
    this.tokens.add(token);
    return { status: 200, body: { access_token: token, scope: 'create:organization_invitations', expires_in: 86400, token_type: 'Bearer' } };
  }

  private invite(org: string, input: Record<string, unknown>): Answer {
    const invalid = (message: string) => mgmtError(400, 'Bad Request', `Payload validation error: ${message}`, 'invalid_body');
    const invitee = (input.invitee ?? {}) as { email?: unknown };
    const inviter = (input.inviter ?? {}) as { name?: unknown };
    if (typeof inviter.name !== 'string' || inviter.name === '') return invalid("Missing required property: name (on property inviter).");
    if (typeof invitee.email !== 'string' || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(invitee.email)) {
      return invalid(`'Object didn't pass validation for format email: ${String(invitee.email)}' on property invitee.email (The invitee's email).`);
    }
    if (typeof input.client_id !== 'string' || input.client_id === '') return invalid('Missing required property: client_id.');
    const ttl = input.ttl_sec === undefined || input.ttl_sec === 0 ? 604_800 : Number(input.ttl_sec);
    if (!Number.isInteger(ttl) || ttl < 0 || ttl > 2_592_000) return invalid("'Too long' on property ttl_sec.");
    const now = new Date();
    const ticket = randomBytes(16).toString('base64url');
    const invitation = {
      id: `uinv_${randomBytes(8).toString('hex')}`,
      organization_id: org,
      inviter: { name: inviter.name },
      invitee: { email: invitee.email },
      invitation_url: `https://app.example/login?invitation=${ticket}&organization=${org}&organization_name=acme`,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + ttl * 1000).toISOString(),
      client_id: input.client_id,
      ...(typeof input.connection_id === 'string' ? { connection_id: input.connection_id } : {}),
      app_metadata: {},
      user_metadata: {},
      roles: Array.isArray(input.roles) ? input.roles : [],
      ticket_id: ticket,
    };
    this.invitations.push(invitation);
    return { status: 201, body: invitation };
  }
}
