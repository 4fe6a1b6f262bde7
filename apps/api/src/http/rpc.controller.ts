import { Body, Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { MethodRegistry } from './method-registry';

/** `POST /<package>.<Service>/<Method>`: every RPC-style method of the spec. */
@Controller()
export class RpcController {
  constructor(private readonly registry: MethodRegistry) {}

  @Post(':service/:method')
  @HttpCode(200)
  call(
    @Param('service') service: string,
    @Param('method') method: string,
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    // Set before invoking, so an error answer carries them too.
    for (const [name, value] of Object.entries(this.registry.headersOf(service, method))) void reply.header(name, value);
    return this.registry.invoke(service, method, principal, body, 'rpc');
  }
}
