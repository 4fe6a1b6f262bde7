import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { BasicStrategy as PassportBasic } from 'passport-http';
import { CredentialsService } from './credentials.service';
import type { Principal } from './principal';

/** HTTP Basic with an API key pair (username:secret). */
@Injectable()
export class BasicStrategy extends PassportStrategy(PassportBasic, 'basic') {
  constructor(private readonly credentials: CredentialsService) {
    super();
  }

  async validate(username: string, password: string): Promise<Principal | false> {
    return (await this.credentials.authenticate(username, password)) ?? false;
  }
}
