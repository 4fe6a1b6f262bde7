import { Controller, Get, Module } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '../auth/principal';

/** GetAuth: exactly the identity and evidence the spec lists, for whoever presented the credential. */
@Controller()
export class IdentityController {
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
}

@Module({ controllers: [IdentityController] })
export class IdentityModule {}
