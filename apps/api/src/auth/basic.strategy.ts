import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy as CustomStrategy } from 'passport-custom';
import { CredentialsService } from './credentials.service';
import type { Principal } from './principal';

/**
 * HTTP Basic with an API key pair (username:secret). The header is parsed here rather than by
 * passport-http, whose use of the deprecated `new Buffer()` costs every request a deprecation check.
 */
@Injectable()
export class BasicStrategy extends PassportStrategy(CustomStrategy, 'basic') {
  constructor(private readonly credentials: CredentialsService) {
    super();
  }

  /**
   * `ip` is Fastify's: the socket's peer (no trustProxy is set), which the limit of failed attempts
   * per address counts. The limits' answers (RESOURCE_EXHAUSTED, UNAVAILABLE) are thrown through.
   */
  async validate(request: { headers: Record<string, string | string[] | undefined>; ip: string }): Promise<Principal | false> {
    const pair = basicCredentials(request.headers.authorization);
    if (!pair) return false;
    return (await this.credentials.authenticate(pair.username, pair.password, request.ip)) ?? false;
  }
}

export function basicCredentials(header: string | string[] | undefined): { username: string; password: string } | null {
  if (typeof header !== 'string') return null;
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
