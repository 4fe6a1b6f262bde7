/**
 * The identity-provider port (issue 21): inviting someone into the organization at the identity
 * provider an idp connection names; accepting the invitation signs them up there, and their first
 * bearer sign-in here makes them a member with the organization's default role. Adapter: Auth0's
 * Management API on the official `auth0` client (auth0.idp.ts). Adapters never put a credential in an
 * error.
 */

export interface NewInvitation {
  /** Who is invited. */
  email: string;
  /** Who invites, as the invitation shows them. */
  inviterName: string;
  /** How long the invitation stays valid; the provider's default when absent. */
  ttlSeconds?: number;
}

export interface Invitation {
  id: string;
  /** The link the invitee follows. */
  url: string;
  email: string;
  /** RFC 3339. */
  createTime: string;
  /** RFC 3339. */
  expireTime: string;
}

export interface IdentityProvider {
  createOrganizationInvitation(invitation: NewInvitation): Promise<Invitation>;
}

/** Auth0's bound on `ttl_sec` (30 days). */
export const MAX_INVITATION_TTL_SECONDS = 2_592_000;
