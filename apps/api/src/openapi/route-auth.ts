import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import type { DiscoveryService, Reflector } from '@nestjs/core';
import type { SpecMethod } from '@svc/contracts/catalog';
import type { RouteAuth } from '@svc/infrastructure/openapi/openapi-document';
import { IS_PUBLIC, MACHINE_ONLY, WORKLOAD_ONLY } from '../auth/principal';
import { compileRoute } from '../http/rest-routes';

interface GuardedRoute {
  verb: string;
  path: string;
  auth: RouteAuth;
}

/**
 * The credentials each catalog method's routes take, read from the same guard metadata
 * (@Public, @WorkloadOnly, @MachineOnly) ApiAuthGuard reads: a dedicated controller route that
 * matches one of the method's REST templates decides; every other route takes the API credentials.
 */
export function routeAuthOf(discovery: DiscoveryService, reflector: Reflector): (m: SpecMethod) => RouteAuth {
  const guarded: GuardedRoute[] = [];
  for (const wrapper of discovery.getControllers()) {
    const controller = wrapper.metatype as (new (...args: never[]) => object) | undefined;
    if (!controller) continue;
    const prefix = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    for (const key of Object.getOwnPropertyNames(controller.prototype)) {
      const handler = (controller.prototype as Record<string, unknown>)[key];
      if (typeof handler !== 'function' || key === 'constructor') continue;
      const verb = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (verb === undefined) continue;
      const targets = [handler, controller];
      const auth: RouteAuth = reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)
        ? 'public'
        : reflector.getAllAndOverride<boolean>(WORKLOAD_ONLY, targets)
          ? 'workload'
          : reflector.getAllAndOverride<boolean>(MACHINE_ONLY, targets)
            ? 'machine'
            : 'api';
      if (auth === 'api') continue;
      const paths = [Reflect.getMetadata(PATH_METADATA, handler) as string | string[]].flat();
      // find-my-way spells a literal `:` as `::`.
      for (const p of paths) guarded.push({ verb: RequestMethod[verb], path: `/${[prefix, p].filter(Boolean).join('/')}`.replace(/\/+/g, '/').replace(/::/g, ':'), auth });
    }
  }
  return (m) => {
    for (const rest of m.rest ?? []) {
      const route = compileRoute(m, rest);
      const hit = guarded.find((g) => g.verb === route.verb && route.pattern.test(g.path));
      if (hit) return hit.auth;
    }
    return 'api';
  };
}
