import { SPEC_METHOD_BY_KEY } from '@svc/contracts/catalog';
import type { FastifyRequest } from 'fastify';

const LABEL = Symbol('svc.method');
type Labelled = FastifyRequest & { [LABEL]?: string };

/** Marks the request as a call of this catalog method (RPC or REST alias); unknown names are not kept. */
export function labelMethod(request: FastifyRequest, service: string, method: string): void {
  const key = `${service}/${method}`;
  if (SPEC_METHOD_BY_KEY.has(key)) (request as Labelled)[LABEL] = key;
}

/**
 * The `method` of the access log and the latency histogram: the catalog method, else the route
 * pattern Fastify matched. Both are bounded sets, so a caller cannot grow the metric's label space.
 */
export function methodOf(request: FastifyRequest): string {
  return (request as Labelled)[LABEL] ?? request.routeOptions?.url ?? 'unmatched';
}
