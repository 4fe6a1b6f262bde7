import { type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, type ErrorCode } from '@svc/domain/shared/domain-error';
import { unauthenticated } from '../http/errors';
import { MethodRegistry } from '../http/method-registry';
import { IS_PUBLIC, isMachineIdentity, MACHINE_ONLY, machinePrincipal, WORKLOAD_ONLY } from './principal';
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
 * An RPC method declared `machine` (InvokeTrigger) takes machine credentials as well.
 */
@Injectable()
export class ApiAuthGuard extends AuthGuard(['basic', 'bearer', 'svc-session']) {
  private readonly workload = new WorkloadAuthGuard();
  private readonly machine = new MachineAuthGuard();
  private readonly machineOrApi = new MachineOrApiAuthGuard();

  constructor(
    private readonly reflector: Reflector,
    private readonly registry: MethodRegistry,
  ) {
    super();
  }

  override canActivate(context: ExecutionContext) {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    if (this.reflector.getAllAndOverride<boolean>(WORKLOAD_ONLY, targets)) return this.workload.canActivate(context);
    if (this.reflector.getAllAndOverride<boolean>(MACHINE_ONLY, targets)) return this.machine.canActivate(context);
    if (this.acceptsMachine(context)) return this.machineOrApi.canActivate(context);
    return super.canActivate(context);
  }

  override handleRequest<T>(error: unknown, user: T | false, _info: unknown, context: ExecutionContext): T {
    return admitted(error, user, context);
  }

  /** The RPC route (`POST /:service/:method`) to a method that machine credentials may call. */
  private acceptsMachine(context: ExecutionContext): boolean {
    const params = context.switchToHttp().getRequest<FastifyRequest<{ Params: { service?: string; method?: string } }>>().params;
    const { service, method } = params ?? {};
    return typeof service === 'string' && typeof method === 'string' && this.registry.acceptsMachine(service, method);
  }
}

/**
 * Methods machine credentials may call: those first (a constant-time digest compare that answers
 * no rather than failing, so a member's key pair goes on to the other schemes), then the API
 * schemes. A machine caller becomes `machinePrincipal`, with no organization of its own.
 */
@Injectable()
export class MachineOrApiAuthGuard extends AuthGuard(['svc-machine', 'basic', 'bearer', 'svc-session']) {
  override handleRequest<T>(error: unknown, user: T | false, _info: unknown, context: ExecutionContext): T {
    const admittedUser = admitted(error, user, context);
    return (isMachineIdentity(admittedUser) ? machinePrincipal(admittedUser) : admittedUser) as T;
  }
}

/** The user passport found, or the refusal every API route answers. */
function admitted<T>(error: unknown, user: T | false, context: ExecutionContext): T {
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

function challenge(context: ExecutionContext, value: string): void {
  void context.switchToHttp().getResponse<FastifyReply>().header('WWW-Authenticate', value);
}
