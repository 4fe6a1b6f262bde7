import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { INVOKE_TRIGGER_METHOD, InvokeTriggerRequest, InvokeTriggerResponse, triggersApi } from '@svc/contracts/triggers/triggers.contract';
import { checkInvokeArms } from '@svc/domain/triggers/invocation';
import { DomainError } from '@svc/domain/shared/domain-error';
import { actorOf } from '../auth/principal';
import { ChatPortModule } from '../chat/chat-port.module';
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
      {
        ...defineMethod(triggersApi, INVOKE_TRIGGER_METHOD, { request: InvokeTriggerRequest, response: InvokeTriggerResponse }, 'write', ({ principal, request }: MethodCall<InvokeTriggerRequest>) => {
          // The spec: the chat arm is "produced only by the server-internal chat event dispatcher after a
          // verified chat webhook ... External callers must not populate it." The internal dispatchers
          // are ours in process and the integrations server with machine credentials; members send message.
          const arm = checkInvokeArms(request.message, request.chat);
          if (principal.authenticator === 'machine') {
            if (arm !== 'chat') throw new DomainError('PERMISSION_DENIED', 'machine credentials may send only the chat arm of InvokeTrigger');
            return this.invocations.invokeForWorkspace(actorOf(principal), request);
          }
          if (arm === 'chat') {
            throw new DomainError(
              'PERMISSION_DENIED',
              'chat is the internal arm of InvokeTrigger: only the chat event dispatchers fill it (HandleChatEvent after a verified webhook, or the integrations server with machine credentials); send message instead',
            );
          }
          return this.invocations.invoke(actorOf(principal), request);
        }),
        machine: true,
      },
    );
  }
}

@Module({ imports: [ChatPortModule], providers: [TriggerMethods, TriggerInvocations, SessionCommands], exports: [TriggerInvocations] })
export class TriggersModule {}
