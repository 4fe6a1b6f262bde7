import { Global, Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { SessionTokens } from '@svc/infrastructure/auth/session-tokens';
import { AUTH_PROVIDERS } from './auth.providers';
import { BasicStrategy } from './basic.strategy';
import { BearerIdentities } from './bearer-identities.service';
import { BearerStrategy } from './bearer.strategy';
import { CredentialsService } from './credentials.service';
import { MachineStrategy } from './machine.strategy';
import { SessionStrategy } from './session.strategy';
import { WorkloadStrategy } from './workload.strategy';

/** Every way to authenticate (docs/decisions.md, "Authentication"): the passport strategies and what they verify with. */
@Global()
@Module({
  imports: [PassportModule],
  providers: [...AUTH_PROVIDERS, CredentialsService, BasicStrategy, BearerIdentities, BearerStrategy, SessionStrategy, WorkloadStrategy, MachineStrategy],
  exports: [SessionTokens, CredentialsService],
})
export class AuthModule {}
