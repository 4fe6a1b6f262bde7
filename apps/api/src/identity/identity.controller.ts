import { Body, Controller, Get, HttpCode, Module, Post } from '@nestjs/common';
import { IsNotEmpty, IsString } from 'class-validator';
import { SessionTokens } from '@svc/infrastructure/auth/session-tokens';
import { parseRequest } from '@svc/infrastructure/requests/parse-request';
import { CurrentPrincipal, CurrentWorkload, type Principal, Public, type WorkloadIdentity, WorkloadOnly } from '../auth/principal';
import { SessionOwners } from './session-owner';

export class MintAgentSessionTokenRequest {
  @IsString() @IsNotEmpty() session!: string;
}

/** svc.auth.v1.AuthService, and the public keys that verify the session tokens it mints. */
@Controller()
export class IdentityController {
  constructor(
    private readonly tokens: SessionTokens,
    private readonly owners: SessionOwners,
  ) {}

  /** GetAuth: exactly the identity and evidence the spec lists, for whoever presented the credential. */
  @Get('v1/auth')
  getAuth(@CurrentPrincipal() principal: Principal) {
    return {
      identity: {
        actor: principal.actor,
        subject: principal.subject,
        organization: principal.org,
        session: principal.session,
      },
      evidence: {
        authenticator: principal.authenticator,
        provider: principal.provider,
        externalIdentity: principal.externalIdentity,
      },
    };
  }

  /**
   * MintAgentSessionToken: the workload proof says only who is calling; the organization and the
   * subject come from the named session, never from the caller.
   */
  @Post('v1/auth/session-token')
  @HttpCode(200)
  @WorkloadOnly()
  async mintAgentSessionToken(@CurrentWorkload() workload: WorkloadIdentity, @Body() body: unknown) {
    const request = await parseRequest({ request: MintAgentSessionTokenRequest }, body);
    const owned = await this.owners.resolve(request.session);
    const { token, expiresAt } = await this.tokens.mint({
      org: owned.org,
      subject: owned.agent,
      session: owned.session,
      provider: workload.provider,
      externalIdentity: workload.externalIdentity,
    });
    return { token, expiresAt: expiresAt.toISOString() };
  }

  /** The JWKS of the session-token signing key (public half only), for anyone verifying our tokens. */
  @Get('.well-known/jwks.json')
  @Public()
  jwks() {
    return this.tokens.jwks();
  }
}

@Module({ controllers: [IdentityController], providers: [SessionOwners] })
export class IdentityModule {}
