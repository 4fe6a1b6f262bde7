import { DomainError } from '@svc/domain/shared/domain-error';
import { Body, Controller, Get, HttpCode, Module, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { IsNotEmpty, IsString } from 'class-validator';
import { GetAuthResponse, MintAgentSessionTokenResponse } from '@svc/contracts/auth/auth.contract';
import { SessionTokens } from '@svc/infrastructure/auth/session-tokens';
import { parseRequest } from '@svc/infrastructure/requests/parse-request';
import { unauthenticated } from '../http/errors';
import { CurrentPrincipal, CurrentWorkload, type Principal, Public, type WorkloadIdentity, WorkloadOnly } from '../auth/principal';
import { Answers } from '../openapi/route-facts';
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

  /**
   * GetAuth: the identity and evidence the spec lists, and the caller's effective permission keys
   * (spec part 1, Authentication rule 3: "listed in the current-user response, `permissions` field"),
   * computed for this request from the roles held now, sorted.
   */
  @Get('v1/auth')
  @Answers(GetAuthResponse)
  getAuth(@CurrentPrincipal() principal: Principal): GetAuthResponse {
    // The guard lets machine credentials reach only the methods that accept them; this is not one.
    if (principal.authenticator === 'machine') throw new DomainError('PERMISSION_DENIED', 'machine credentials have no GetAuth');
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
      permissions: [...principal.permissions].sort(),
    };
  }

  /**
   * MintAgentSessionToken: the workload proof says only who is calling; the organization and the
   * subject come from the named session, never from the caller.
   */
  @Post('v1/auth/session-token')
  @HttpCode(200)
  @WorkloadOnly()
  @Answers(MintAgentSessionTokenResponse)
  async mintAgentSessionToken(
    @CurrentWorkload() workload: WorkloadIdentity,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<MintAgentSessionTokenResponse> {
    const request = await parseRequest({ request: MintAgentSessionTokenRequest }, body);
    const owned = await this.owners.resolve(request.session);
    // The proof's issuer is bound to organizations: one tenant's workload platform never holds a
    // token for another tenant's session. The message does not name that organization.
    if (!workload.organizations.includes(owned.org)) {
      void reply.header('WWW-Authenticate', 'Svc-Workload realm="svc"');
      throw unauthenticated("the workload proof's issuer may not mint session tokens for this session's organization");
    }
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
