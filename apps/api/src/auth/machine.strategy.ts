import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { createHash, timingSafeEqual } from 'node:crypto';
import { Strategy as CustomStrategy } from 'passport-custom';
import { MACHINE_CREDENTIALS } from './auth.providers';
import { basicCredentials } from './basic.strategy';
import type { MachineIdentity } from './principal';

/**
 * Machine credentials (operator config `machine_credentials`, Basic `username:secret` pairs): the
 * integrations server forwarding webhooks. They carry no organization (the event names its
 * workspace), so the guard offers this strategy to the @MachineOnly() webhook routes alone, and no
 * other strategy is offered there. Pairs are compared as SHA-256 digests in constant time.
 */
@Injectable()
export class MachineStrategy extends PassportStrategy(CustomStrategy, 'svc-machine') {
  private readonly pairs: { username: string; digest: Buffer }[];

  constructor(@Inject(MACHINE_CREDENTIALS) pairs: readonly string[]) {
    super();
    this.pairs = pairs.map((pair) => ({ username: pair.slice(0, pair.indexOf(':')), digest: digestOf(pair) }));
  }

  validate(request: { headers: Record<string, string | string[] | undefined> }): MachineIdentity | false {
    const presented = basicCredentials(request.headers.authorization);
    if (!presented) return false;
    const digest = digestOf(`${presented.username}:${presented.password}`);
    // Every configured pair is compared, so the time taken does not tell which username exists.
    let match: string | undefined;
    for (const pair of this.pairs) if (timingSafeEqual(pair.digest, digest) && match === undefined) match = pair.username;
    return match === undefined ? false : { machine: match };
  }
}

function digestOf(pair: string): Buffer {
  return createHash('sha256').update(pair, 'utf8').digest();
}
