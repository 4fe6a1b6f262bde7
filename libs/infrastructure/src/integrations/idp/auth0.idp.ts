/**
 * Auth0 as the identity provider, on the official client (`auth0` v7 ManagementClient): an invitation
 * to the connection's Auth0 organization (`POST /api/v2/organizations/{id}/invitations`,
 * https://auth0.com/docs/api/management/v2/organizations/post-invitations: `inviter.name`,
 * `invitee.email`, `client_id` of the application the invitee signs in to, optional `connection_id`
 * and `ttl_sec`; answers the invitation with `invitation_url` and `expires_at`). The client gets its
 * Management API token itself (client credentials at `https://{domain}/oauth/token`).
 *
 * The client builds `https://{domain}` for both calls and has no base URL option. `api_url` (tests, or
 * a proxy) is honoured through the client's own `fetch` option: a fetch that sends what the client
 * addresses to `https://{domain}/` to `{api_url}/` instead and touches nothing else
 * (docs/decisions.md, "Pager, tracker, incident manager and identity provider ports").
 */
import { ManagementClient, ManagementError, ManagementTimeoutError } from 'auth0';
import { scrub, VendorError, vendorStatusError } from '../vendor';
import { MAX_INVITATION_TTL_SECONDS, type IdentityProvider, type Invitation, type NewInvitation } from './idp.port';

export interface Auth0Options {
  connection: string;
  /** The tenant's domain (`tenant.eu.auth0.com` or a custom domain). */
  domain: string;
  /** The machine-to-machine application allowed to call the Management API. */
  clientId: string;
  clientSecret: string;
  /** The Auth0 organization (`org_…`) invitations are to. */
  organizationId: string;
  /** The application the invitee signs in to (the invitation's `client_id`). */
  applicationClientId: string;
  /** The Auth0 connection the invitee must sign in with (`con_…`), if any. */
  connectionId?: string;
  /** Where `https://{domain}` is really served (tests). */
  apiUrl?: string;
  timeoutMs?: number;
}

/** A bare host name (what the client requires of `domain`). */
const DOMAIN = /^[A-Za-z0-9.-]{1,253}(:\d{1,5})?$/;
/** An email address as an invitation needs one: one @, no blanks, bounded. */
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

export class Auth0IdentityProvider implements IdentityProvider {
  private readonly subject: string;
  private readonly client: ManagementClient;
  private readonly secrets: string[];

  constructor(private readonly options: Auth0Options) {
    this.subject = `Auth0 (${options.connection})`;
    if (!DOMAIN.test(options.domain)) throw new VendorError('FAILED_PRECONDITION', `${options.connection}: details.idp.domain must be a bare host name`);
    this.secrets = [options.clientSecret];
    const origin = `https://${options.domain}/`;
    const target = options.apiUrl === undefined ? undefined : `${options.apiUrl.replace(/\/+$/, '')}/`;
    const rewrite: typeof fetch | undefined =
      target === undefined
        ? undefined
        : (input, init) => {
            const url = typeof input === 'string' ? input : input instanceof URL ? input.toString() : input.url;
            return fetch(url.startsWith(origin) ? target + url.slice(origin.length) : url, init);
          };
    this.client = new ManagementClient({
      domain: options.domain,
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      timeoutInSeconds: Math.max(1, Math.ceil((options.timeoutMs ?? 10_000) / 1000)),
      // A 429 is answered to the caller, not retried inside its time budget.
      maxRetries: 0,
      telemetry: false,
      ...(rewrite ? { fetch: rewrite } : {}),
    });
  }

  async createOrganizationInvitation(invitation: NewInvitation): Promise<Invitation> {
    if (!EMAIL.test(invitation.email)) throw new VendorError('INVALID_ARGUMENT', 'email must be an email address');
    if (invitation.ttlSeconds !== undefined && (!Number.isInteger(invitation.ttlSeconds) || invitation.ttlSeconds < 1 || invitation.ttlSeconds > MAX_INVITATION_TTL_SECONDS)) {
      throw new VendorError('INVALID_ARGUMENT', `ttl must be 1 to ${MAX_INVITATION_TTL_SECONDS} seconds`);
    }
    try {
      const created = await this.client.organizations.invitations.create(this.options.organizationId, {
        inviter: { name: invitation.inviterName.slice(0, 300) },
        invitee: { email: invitation.email },
        client_id: this.options.applicationClientId,
        ...(this.options.connectionId ? { connection_id: this.options.connectionId } : {}),
        ...(invitation.ttlSeconds ? { ttl_sec: invitation.ttlSeconds } : {}),
      });
      if (!created.id || !created.invitation_url) throw new VendorError('UNAVAILABLE', `${this.subject} answered an invitation without an id or URL`);
      return {
        id: created.id,
        url: created.invitation_url,
        email: created.invitee?.email ?? invitation.email,
        createTime: created.created_at ?? '',
        expireTime: created.expires_at ?? '',
      };
    } catch (error) {
      throw this.failure(error);
    }
  }

  private failure(error: unknown): VendorError {
    if (error instanceof VendorError) return error;
    if (error instanceof ManagementTimeoutError) return new VendorError('DEADLINE_EXCEEDED', `${this.subject} did not answer in time`);
    if (error instanceof ManagementError && typeof error.statusCode === 'number') {
      // The token endpoint's refusal (`access_denied`) is the connection's credentials being refused.
      if (error.message.includes('token request')) {
        if (error.statusCode === 408) return new VendorError('DEADLINE_EXCEEDED', `${this.subject} did not issue a Management API token in time`);
        if (error.statusCode < 500 && error.statusCode !== 429) return new VendorError('PERMISSION_DENIED', `${this.subject} refused the connection's client credentials`);
      }
      const body = (error.body ?? {}) as { message?: unknown; errorCode?: unknown; error_description?: unknown };
      const detail = [body.message, body.error_description, body.errorCode].filter((v): v is string => typeof v === 'string').join(' ');
      // An organization the connection names that Auth0 does not know is the connection's problem.
      if (error.statusCode === 404) return new VendorError('FAILED_PRECONDITION', `${this.subject}: ${scrub(detail, this.secrets) || 'the organization was not found'}`);
      return vendorStatusError(this.subject, error.statusCode, detail, this.secrets);
    }
    return new VendorError('UNAVAILABLE', `${this.subject} could not be reached`);
  }
}
