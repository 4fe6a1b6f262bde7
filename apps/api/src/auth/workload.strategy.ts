import { Inject, Injectable, Logger } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { TokenRejected, type TrustedIssuers } from '@svc/infrastructure/auth/trusted-issuers';
import { Strategy as CustomStrategy } from 'passport-custom';
import { WORKLOAD_ISSUERS } from './auth.providers';
import type { WorkloadIdentity } from './principal';
import { sanitizedIdentity, schemeToken } from './token-credentials';

/**
 * `Authorization: Svc-Workload <JWT>` from a configured workload issuer. It proves only which
 * workload is calling (no organization), so the guard offers it to MintAgentSessionToken alone,
 * which mints only for sessions of the organizations the issuer is bound to.
 */
@Injectable()
export class WorkloadStrategy extends PassportStrategy(CustomStrategy, 'svc-workload') {
  private readonly logger = new Logger('auth');

  constructor(@Inject(WORKLOAD_ISSUERS) private readonly issuers: TrustedIssuers) {
    super();
  }

  async validate(request: { headers: Record<string, string | string[] | undefined> }): Promise<WorkloadIdentity | false> {
    const token = schemeToken(request.headers.authorization, 'Svc-Workload');
    if (!token || this.issuers.size === 0) return false;
    try {
      const claims = await this.issuers.verify(token);
      return { provider: claims.iss, externalIdentity: sanitizedIdentity(claims.sub), organizations: this.issuers.organizationsOf(claims.iss) };
    } catch (error) {
      if (!(error instanceof TokenRejected)) throw error;
      this.logger.debug(`workload proof refused: ${error.message}`);
      return false;
    }
  }
}
