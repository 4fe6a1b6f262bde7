import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { issueNotificationPolicyApi } from '@svc/contracts/notificationpolicy/notificationpolicy.contract';
import { issueNotificationPolicySpec } from '@svc/domain/notificationpolicy/issue-notification-policy.resource';
import { ResourceKit } from '../resource-kit/resource-kit';

/** svc.issuenotificationpolicy.v1.IssueNotificationPolicyService: a seeded singleton with Get and Update only. */
@Injectable()
class NotificationPolicyMethods implements OnModuleInit {
  constructor(private readonly kit: ResourceKit) {}

  onModuleInit(): void {
    this.kit.register(issueNotificationPolicySpec, issueNotificationPolicyApi);
  }
}

@Module({ providers: [NotificationPolicyMethods] })
export class NotificationPolicyModule {}
