import { type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { unauthenticated } from '../http/errors';
import { IS_PUBLIC } from './principal';

/** Every route needs a credential unless marked @Public(). */
@Injectable()
export class ApiAuthGuard extends AuthGuard(['basic']) {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override canActivate(context: ExecutionContext) {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    return super.canActivate(context);
  }

  override handleRequest<T>(error: unknown, user: T | false): T {
    if (error || !user) throw unauthenticated();
    return user;
  }
}
