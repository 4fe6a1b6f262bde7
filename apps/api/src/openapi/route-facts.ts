import { RequestMethod, SetMetadata } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import type { DiscoveryService, Reflector } from '@nestjs/core';
import type { SpecMethod } from '@svc/contracts/catalog';
import type { RouteAuth, RouteFacts } from '@svc/infrastructure/openapi/openapi-document';
import type { ResponseDeclaration } from '@svc/contracts/shared/responses';
import { IS_PUBLIC, MACHINE_ONLY, WORKLOAD_ONLY } from '../auth/principal';
import { compileRoute } from '../http/rest-routes';

interface ControllerRoute {
  verb: string;
  path: string;
  auth: RouteAuth;
  response?: ResponseDeclaration;
}

const ANSWERS = 'svc:answers';

/**
 * What a dedicated controller route answers, for the OpenAPI document (the registry's methods say
 * it in their definition). Annotate the handler's return type with the same class.
 */
export const Answers = (response: ResponseDeclaration) => SetMetadata(ANSWERS, response);

/**
 * What the controllers say of each catalog method's routes: whether a dedicated controller route
 * (not the registry's RPC and REST dispatch) serves one of its REST templates (GetAuth, the
 * artifact upload, the chat webhook), and the credentials it takes, read from the same guard
 * metadata (@Public, @WorkloadOnly, @MachineOnly) ApiAuthGuard reads. Every other route takes the
 * API credentials.
 */
export function routeFactsOf(discovery: DiscoveryService, reflector: Reflector): (m: SpecMethod) => RouteFacts {
  const guarded: ControllerRoute[] = [];
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
      const response = reflector.get<ResponseDeclaration | undefined>(ANSWERS, handler);
      const paths = [Reflect.getMetadata(PATH_METADATA, handler) as string | string[]].flat();
      for (const p of paths) guarded.push({ verb: RequestMethod[verb], path: samplePath(`/${[prefix, p].filter(Boolean).join('/')}`), auth, response });
    }
  }
  return (m) => {
    for (const rest of m.rest ?? []) {
      const route = compileRoute(m, rest);
      // The registry's wildcard routes (`v1/*`) match no template's literal pattern.
      const hit = guarded.find((g) => g.verb === route.verb && route.pattern.test(g.path));
      if (hit) return { auth: hit.auth, dedicated: true, response: hit.response };
    }
    return { auth: 'api', dedicated: false };
  };
}

/**
 * A concrete path a find-my-way route matches, for testing against the spec's templates: each
 * `:param` becomes one segment, and `::` (find-my-way's literal colon) a `:`.
 */
function samplePath(route: string): string {
  return route
    .replace(/\/+/g, '/')
    .replace(/::/g, '\u0000')
    .replace(/:[A-Za-z_][A-Za-z0-9_]*/g, 'x')
    .replace(/\u0000/g, ':');
}
