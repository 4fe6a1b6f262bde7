import { createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Actor } from '@svc/domain/shared/decider';

/** The authenticated caller of one request. The organization comes from the credential, never the body. */
export interface Principal {
  org: string;
  /** Credential source: `users/{id}` or `service-accounts/{id}`. */
  actor: string;
  /** Effective entity the request acts as. */
  subject: string;
  session: string;
  authenticator: 'basic';
  provider: string;
  externalIdentity: string;
  /** Effective permission keys, computed for this request from the roles the member holds now. */
  permissions: string[];
}

export const CurrentPrincipal = createParamDecorator((_: unknown, context: ExecutionContext): Principal => {
  return context.switchToHttp().getRequest<{ user: Principal }>().user;
});

export function actorOf(principal: Principal, now = new Date()): Actor {
  return {
    org: principal.org,
    actor: principal.actor,
    subject: principal.subject,
    permissions: principal.permissions,
    now: now.toISOString(),
  };
}

export const IS_PUBLIC = 'svc:public';
/** Routes that need no credential (health). */
export const Public = () => SetMetadata(IS_PUBLIC, true);
