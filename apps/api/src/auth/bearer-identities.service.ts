import { Inject, Injectable, Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ORGANIZATION_ID } from '@svc/domain/organizations/organization.decider';
import { userSubjectProblem } from '@svc/domain/organizations/user-subject';
import { type AccessCommand, accessDecider, type AccessEvent, type AccessState, memberPermissions } from '@svc/domain/roles/access.decider';
import { DomainError } from '@svc/domain/shared/domain-error';
import { TokenRejected, type TrustedIssuers } from '@svc/infrastructure/auth/trusted-issuers';
import { DecideAndAppend } from '@svc/application/commands/decide-and-append';
import { BEARER_ISSUERS, ORG_CLAIMS } from './auth.providers';
import { CredentialsService } from './credentials.service';
import type { Principal } from './principal';
import { sanitizedIdentity, VerifiedTokens } from './token-credentials';

/** The projection serving members (checkpoint name), waited for after a first login. */
const ACCESS = 'access';

interface Verified {
  org: string;
  user: string;
  externalIdentity: string;
  principal?: Principal;
  /** Access stamp position when `principal`'s permissions were computed. */
  accessPos?: unknown;
}

/**
 * Bearer JWTs from the configured identity providers, each bound to its organizations (a token
 * naming another is refused), with subjects from the safe set (user-subject.ts). A verified token
 * is remembered until it expires; its principal is recomputed when the organization's access stamp moves, like the Basic
 * path. A person the organization does not know yet joins it, holding the default role, through
 * the command bus (JoinOrganization: idempotent, so concurrent first requests add them once).
 */
@Injectable()
export class BearerIdentities {
  private readonly logger = new Logger('auth');
  private readonly verified = new VerifiedTokens<Verified>();

  constructor(
    @Inject(BEARER_ISSUERS) private readonly issuers: TrustedIssuers,
    @Inject(ORG_CLAIMS) private readonly orgClaims: Map<string, string>,
    private readonly credentials: CredentialsService,
    private readonly commands: CommandBus,
  ) {}

  async authenticate(token: string): Promise<Principal | null> {
    const verified = this.verified.get(token) ?? (await this.verify(token));
    if (!verified) return null;
    const accessPos = await this.credentials.accessPosition(verified.org);
    if (verified.principal && verified.accessPos === accessPos) return verified.principal;
    const principal = await this.resolve(verified);
    if (!principal) return null;
    verified.principal = principal;
    verified.accessPos = accessPos;
    return principal;
  }

  private async verify(token: string): Promise<Verified | null> {
    if (this.issuers.size === 0) return null;
    try {
      const claims = await this.issuers.verify(token);
      const org = claims[this.orgClaims.get(claims.iss) ?? 'org'];
      if (typeof org !== 'string' || !ORGANIZATION_ID.test(org)) throw new TokenRejected('organization claim missing or not an organization ID');
      // Before anything is looked up or joined: an issuer signs in only to its own organizations.
      if (!this.issuers.reaches(claims.iss, org)) throw new TokenRejected(`issuer is not bound to organization '${org}'`);
      const problem = typeof claims.sub === 'string' ? userSubjectProblem(claims.sub) : 'is not a string';
      if (problem !== null) throw new TokenRejected(`sub ${problem}`);
      const verified: Verified = { org, user: `users/${claims.sub}`, externalIdentity: sanitizedIdentity(claims.sub) };
      this.verified.set(token, verified, (claims.exp as number) * 1000);
      return verified;
    } catch (error) {
      if (!(error instanceof TokenRejected)) throw error;
      this.logger.debug(`bearer token refused: ${error.message}`);
      return null;
    }
  }

  private async resolve({ org, user, externalIdentity }: Verified): Promise<Principal | null> {
    const base = { org, actor: user, subject: user, session: '', authenticator: 'bearer' as const, provider: '', externalIdentity };
    const member = await this.credentials.member(org, user);
    if (member) return { ...base, permissions: await this.credentials.permissionsOf(org, member) };
    const state = await this.join(org, user);
    return state ? { ...base, permissions: memberPermissions(state, user) } : null;
  }

  /** Adds the person to the organization; null when there is no such organization. */
  private async join(org: string, user: string): Promise<AccessState | null> {
    const actor = { org, actor: user, subject: user, permissions: [], now: new Date().toISOString() };
    try {
      const handled = await this.commands.execute(
        new DecideAndAppend<AccessState, AccessCommand, AccessEvent>(
          { decider: accessDecider, streamId: `access-${org}`, command: { type: 'JoinOrganization', actor, user }, context: { actor } },
          ACCESS,
        ),
      );
      return handled.state;
    } catch (error) {
      if (error instanceof DomainError && error.code === 'FAILED_PRECONDITION') return null; // no such organization
      throw error;
    }
  }
}
