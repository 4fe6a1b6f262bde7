import { type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, type ErrorCode } from '@svc/domain/shared/domain-error';
import { unauthenticated } from '../http/errors';
import { IS_PUBLIC, MACHINE_ONLY, WORKLOAD_ONLY } from './principal';
import { schemeToken } from './token-credentials';

/** The schemes every route but MintAgentSessionToken accepts, as offered in WWW-Authenticate. */
const CHALLENGE = 'Basic realm="svc", Bearer realm="svc", Svc-Session realm="svc"';
const WORKLOAD_CHALLENGE = 'Svc-Workload realm="svc"';
const LIMIT_CODES: ReadonlySet<ErrorCode> = new Set(['RESOURCE_EXHAUSTED', 'UNAVAILABLE']);

/** MintAgentSessionToken: a Svc-Workload proof and nothing else. */
@Injectable()
export class WorkloadAuthGuard extends AuthGuard('svc-workload') {
  override handleRequest<T>(error: unknown, user: T | false, _info: unknown, context: ExecutionContext): T {
    if (error || !user) {
      const presented = context.switchToHttp().getRequest<FastifyRequest>().headers.authorization;
      challenge(context, WORKLOAD_CHALLENGE);
      throw unauthenticated(
        schemeToken(presented, 'Svc-Workload')
          ? 'the workload proof is not valid (unknown issuer, bad signature or expired)'
          : 'MintAgentSessionToken accepts only an Authorization: Svc-Workload proof',
      );
    }
    return user;
  }
}

/** Internal webhook endpoints: machine credentials and nothing else (an API key pair is refused). */
@Injectable()
export class MachineAuthGuard extends AuthGuard('svc-machine') {
  override handleRequest<T>(error: unknown, user: T | false, _info: unknown, context: ExecutionContext): T {
    if (error || !user) {
      challenge(context, 'Basic realm="svc-internal"');
      throw unauthenticated('this internal endpoint accepts only the machine credentials of the operator configuration');
    }
    return user;
  }
}

/**
 * Every route needs a credential unless marked @Public(): an API key pair, an identity-provider
 * JWT or an agent session token. The route marked @WorkloadOnly() takes a workload proof instead.
 */
@Injectable()
export class ApiAuthGuard extends AuthGuard(['basic', 'bearer', 'svc-session']) {
  private readonly workload = new WorkloadAuthGuard();
  private readonly machine = new MachineAuthGuard();

  constructor(private readonly reflector: Reflector) {
    super();
  }

  override canActivate(context: ExecutionContext) {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    if (this.reflector.getAllAndOverride<boolean>(WORKLOAD_ONLY, targets)) return this.workload.canActivate(context);
    if (this.reflector.getAllAndOverride<boolean>(MACHINE_ONLY, targets)) return this.machine.canActivate(context);
    return super.canActivate(context);
  }

  override handleRequest<T>(error: unknown, user: T | false, _info: unknown, context: ExecutionContext): T {
    // A limit on checking credentials answered (auth-limits.ts): that answer, not a challenge.
    if (error instanceof DomainError && LIMIT_CODES.has(error.code)) throw error;
    if (error || !user) {
      challenge(context, CHALLENGE);
      const presented = context.switchToHttp().getRequest<FastifyRequest>().headers.authorization;
      if (schemeToken(presented, 'Svc-Workload')) {
        throw unauthenticated('a Svc-Workload proof is accepted only by MintAgentSessionToken (POST /v1/auth/session-token)');
      }
      throw unauthenticated();
    }
    return user;
  }
}

function challenge(context: ExecutionContext, value: string): void {
  void context.switchToHttp().getResponse<FastifyReply>().header('WWW-Authenticate', value);
}
