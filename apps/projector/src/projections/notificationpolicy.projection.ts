import { issueNotificationPolicyApi } from '@svc/contracts/notificationpolicy/notificationpolicy.contract';
import { issueNotificationPolicySpec } from '@svc/domain/notificationpolicy/issue-notification-policy.resource';
import { resourceProjection } from '@svc/infrastructure/projection/resource.projection';

export const notificationPolicyProjection = resourceProjection(issueNotificationPolicySpec, issueNotificationPolicyApi);
