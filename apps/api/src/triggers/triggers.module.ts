import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { INVOKE_TRIGGER_METHOD, InvokeTriggerRequest, triggersApi } from '@svc/contracts/triggers/triggers.contract';
import { actorOf } from '../auth/principal';
import { MethodRegistry, type MethodCall } from '../http/method-registry';
import { defineMethod } from '../resource-kit/method-builders';
import { SessionCommands } from '../sessions/session-commands';
import { TriggerInvocations } from './trigger-invocations';

/** svc.triggers.v1.TriggersService beyond the kit's CRUD (which the triggers area registers): InvokeTrigger. */
@Injectable()
class TriggerMethods implements OnModuleInit {
  constructor(
    private readonly registry: MethodRegistry,
    private readonly invocations: TriggerInvocations,
  ) {}

  onModuleInit(): void {
    this.registry.register(
      defineMethod(triggersApi, INVOKE_TRIGGER_METHOD, InvokeTriggerRequest, 'write', ({ principal, request }: MethodCall<InvokeTriggerRequest>) =>
        this.invocations.invoke(actorOf(principal), request),
      ),
    );
  }
}

@Module({ providers: [TriggerMethods, TriggerInvocations, SessionCommands], exports: [TriggerInvocations] })
export class TriggersModule {}
