/**
 * Resources the service itself keeps in every organization (system tags, the notification policy
 * singleton) or takes from the operator configuration (the frozen service catalog, the frozen v2
 * indicators). Each seed is a Sync command of the resource kit, so seeding is idempotent and every
 * change is an ordinary event of the resource's own stream.
 */
import {
  DEFAULT_ISSUE_NOTIFICATION_POLICY,
  issueNotificationPolicySpec,
} from '@svc/domain/notificationpolicy/issue-notification-policy.resource';
import { systemTagSeeds } from '../tags/system-tags.seed';
import { catalogSeeds } from './catalog-seeds';
import { indicatorsV2Seeds } from './indicators-v2-seeds';
import type { SeedSource } from './seed';

/** Every area's seed source, applied in this order after the organization and its access. */
export const SEED_SOURCES: readonly SeedSource[] = [
  systemTagSeeds,
  // The notification policy singleton: created once, then the organization's to edit.
  async () => [{ spec: issueNotificationPolicySpec, id: 'default', resource: DEFAULT_ISSUE_NOTIFICATION_POLICY, mode: 'ensure' }],
  catalogSeeds,
  (org, reads) => indicatorsV2Seeds(org, reads),
];
