import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy as CustomStrategy } from 'passport-custom';
import { BearerIdentities } from './bearer-identities.service';
import type { Principal } from './principal';
import { schemeToken } from './token-credentials';

/** `Authorization: Bearer <JWT>` from a configured identity provider (bearer_issuers). */
@Injectable()
export class BearerStrategy extends PassportStrategy(CustomStrategy, 'bearer') {
  constructor(private readonly identities: BearerIdentities) {
    super();
  }

  async validate(request: { headers: Record<string, string | string[] | undefined> }): Promise<Principal | false> {
    const token = schemeToken(request.headers.authorization, 'Bearer');
    if (!token) return false;
    return (await this.identities.authenticate(token)) ?? false;
  }
}
