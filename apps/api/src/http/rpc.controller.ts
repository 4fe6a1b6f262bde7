import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
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
  ): Promise<unknown> {
    return this.registry.invoke(service, method, principal, body, 'rpc');
  }
}
