import { Injectable, Logger } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { SessionTokens } from '@svc/infrastructure/auth/session-tokens';
import { TokenRejected } from '@svc/infrastructure/auth/trusted-issuers';
import { Strategy as CustomStrategy } from 'passport-custom';
import { AGENT_PERMISSIONS, AGENT_SERVICE_IDENTITY, type Principal } from './principal';
import { schemeToken, VerifiedTokens } from './token-credentials';

/**
 * `Authorization: Svc-Session <token>`: an agent session token this service minted. The request
 * acts for the token's organization as its agent, with the agent service identity's keys.
 */
@Injectable()
export class SessionStrategy extends PassportStrategy(CustomStrategy, 'svc-session') {
  private readonly logger = new Logger('auth');
  private readonly verified = new VerifiedTokens<Principal>();

  constructor(private readonly tokens: SessionTokens) {
    super();
  }

  async validate(request: { headers: Record<string, string | string[] | undefined> }): Promise<Principal | false> {
    const token = schemeToken(request.headers.authorization, 'Svc-Session');
    if (!token) return false;
    const cached = this.verified.get(token);
    if (cached) return cached;
    try {
      const claims = await this.tokens.verify(token);
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
      return false;
    }
  }
}
