import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { knownIssuesApi } from '@svc/contracts/knownissues/knownissues.contract';
import { knownIssueSpec } from '@svc/domain/knownissues/known-issue.resource';
import { ResourceKit } from '../resource-kit/resource-kit';

/** svc.knownissues.v1.KnownIssuesService: entirely the resource kit. */
@Injectable()
class KnownIssuesMethods implements OnModuleInit {
  constructor(private readonly kit: ResourceKit) {}

  onModuleInit(): void {
    this.kit.register(knownIssueSpec, knownIssuesApi);
  }
}

@Module({ providers: [KnownIssuesMethods] })
export class KnownIssuesModule {}
