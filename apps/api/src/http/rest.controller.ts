import { All, Controller, HttpCode, Req, Res } from '@nestjs/common';
import { SPEC_METHODS } from '@svc/contracts/catalog';
import { DomainError } from '@svc/domain/shared/domain-error';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { EXTENSION_ROUTES } from '../history/extension-routes';
import { labelMethod } from '../observability/method-label';
import { answer } from './event-stream';
import { MethodRegistry } from './method-registry';
import { RestRouter, restRequest } from './rest-routes';

/** Every REST alias the spec lists (`GET /v1/connections/{connection_id}`, `/v1/catalog/...`). */
@Controller()
export class RestController {
  private readonly router = new RestRouter([...EXTENSION_ROUTES, ...SPEC_METHODS]);

  constructor(private readonly registry: MethodRegistry) {}

  @All(['v1/*', 'v2/*'])
  @HttpCode(200)
  async call(
    @Req() req: FastifyRequest,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    const path = req.url.split('?')[0];
    const match = this.router.match(req.method, path);
    if (!match) {
      throw new DomainError('NOT_FOUND', this.router.hasPath(path) ? `${req.method} is not supported on ${path}` : `no route ${req.method} ${path}`);
    }
    const query = (req.query ?? {}) as Record<string, unknown>;
    const { service, method } = match.route;
    labelMethod(req, service, method);
    for (const [name, value] of Object.entries(this.registry.headersOf(service, method))) void reply.header(name, value);
    const result = await this.registry.invoke(service, method, principal, restRequest(match, query, req.body), 'rest', req.headers);
    return answer(reply, result);
  }
}
