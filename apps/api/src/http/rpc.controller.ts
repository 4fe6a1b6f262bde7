import { Body, Controller, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { labelMethod } from '../observability/method-label';
import { answer } from './event-stream';
import { MethodRegistry } from './method-registry';

/** `POST /<package>.<Service>/<Method>`: every RPC-style method of the spec. */
@Controller()
export class RpcController {
  constructor(private readonly registry: MethodRegistry) {}

  @Post(':service/:method')
  @HttpCode(200)
  async call(
    @Param('service') service: string,
    @Param('method') method: string,
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    labelMethod(req, service, method);
    // Set before invoking, so an error answer carries them too.
    for (const [name, value] of Object.entries(this.registry.headersOf(service, method))) void reply.header(name, value);
    const result = await this.registry.invoke(service, method, principal, body, 'rpc', req.headers);
    return answer(reply, result);
  }
}
