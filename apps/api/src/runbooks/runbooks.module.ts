import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { runbooksApi } from '@svc/contracts/runbooks/runbooks.contract';
import { runbookSpec } from '@svc/domain/runbooks/runbook.resource';
import { ResourceKit } from '../resource-kit/resource-kit';

/** svc.runbooks.v1.RunbooksService: entirely the resource kit. */
@Injectable()
class RunbooksMethods implements OnModuleInit {
  constructor(private readonly kit: ResourceKit) {}

  onModuleInit(): void {
    this.kit.register(runbookSpec, runbooksApi);
  }
}

@Module({ providers: [RunbooksMethods] })
export class RunbooksModule {}
