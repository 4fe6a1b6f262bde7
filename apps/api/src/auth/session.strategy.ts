import { Inject, Injectable, Logger } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { agentSpec } from '@svc/domain/agents/agent.resource';
import { SessionTokens } from '@svc/infrastructure/auth/session-tokens';
import { TokenRejected, type TrustedIssuers } from '@svc/infrastructure/auth/trusted-issuers';
import { SESSIONS } from '@svc/application/areas/sessions/sessions.projection';
import { READ_STORE } from '@svc/infrastructure/nest/tokens';
import { docId } from '@svc/infrastructure/projection/projection';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { Strategy as CustomStrategy } from 'passport-custom';
import { AGENT_PERMISSIONS, AGENT_SERVICE_IDENTITY, type Principal } from './principal';
import { WORKLOAD_ISSUERS } from './auth.providers';
import { schemeToken, VerifiedTokens } from './token-credentials';

/**
 * `Authorization: Svc-Session <token>`: an agent session token this service minted. The request
 * acts for the token's organization as its agent, with the agent service identity's keys. The
 * signature is verified once per token (cached until it expires); its session and agent are read on
 * every request (one read of both documents), so deleting either ends the token on the next request
 * rather than when it expires.
 */
@Injectable()
export class SessionStrategy extends PassportStrategy(CustomStrategy, 'svc-session') {
  private readonly logger = new Logger('auth');
  private readonly verified = new VerifiedTokens<Principal>();

  constructor(
    private readonly tokens: SessionTokens,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(WORKLOAD_ISSUERS) private readonly workloads: TrustedIssuers,
  ) {
    super();
  }

  async validate(request: { headers: Record<string, string | string[] | undefined> }): Promise<Principal | false> {
    const token = schemeToken(request.headers.authorization, 'Svc-Session');
    if (!token) return false;
    const principal = this.verified.get(token) ?? (await this.verify(token));
    if (!principal) return false;
    if (!(await this.live(principal))) {
      this.logger.debug('session token refused: its session or agent is deleted');
      return false;
    }
    return principal;
  }

  /** Whether the token's session and agent both exist and are not deleted, as the read models say now. */
  private async live({ org, session, subject }: Principal): Promise<boolean> {
    const [sessionDoc, agentDoc] = await this.reads.findByIds([
      { collection: SESSIONS, id: docId(org, session) },
      { collection: agentSpec.collection, id: docId(org, subject) },
    ]);
    return Boolean(sessionDoc && !sessionDoc.deleteTime && agentDoc && !agentDoc.deleteTime);
  }

  private async verify(token: string): Promise<Principal | null> {
    try {
      const claims = await this.tokens.verify(token);
      // A token outlives no change of the configuration: its minting issuer must still reach its organization.
      if (!this.workloads.reaches(claims.provider, claims.org)) throw new TokenRejected('its workload issuer is no longer bound to its organization');
      const principal: Principal = {
        org: claims.org,
        actor: AGENT_SERVICE_IDENTITY,
        subject: claims.subject,
        session: claims.session,
        authenticator: 'session',
        provider: claims.provider,
        externalIdentity: claims.externalIdentity,
        permissions: [...AGENT_PERMISSIONS],
      };
      this.verified.set(token, principal, claims.expiresAt.getTime());
      return principal;
    } catch (error) {
      if (!(error instanceof TokenRejected)) throw error;
      this.logger.debug(`session token refused: ${error.message}`);
      return null;
    }
  }
}
