/**
 * Resources the service itself keeps in every organization (system tags, the notification policy
 * singleton) or takes from the operator configuration (the frozen service catalog). Each seed is a
 * Sync command of the resource kit, so seeding is idempotent and every change is an ordinary event
 * of the resource's own stream.
 */
import {
  DEFAULT_ISSUE_NOTIFICATION_POLICY,
  issueNotificationPolicySpec,
} from '@svc/domain/notificationpolicy/issue-notification-policy.resource';
import type { JsonObject } from '@svc/domain/shared/json-path';
import type { ResourceSpec } from '@svc/domain/shared/resource';
import type { ReadStore } from '../read-store/read-store.port';
import { systemTagSeeds } from '../tags/system-tags.seed';
import { catalogSeeds } from './catalog-config';
import type { OrganizationConfig } from './operator-config';

export interface Seed {
  spec: ResourceSpec;
  id: string;
  /** Name of the parent of a nested resource (`services/checkout` for its dimensions). */
  parent?: string;
  /** The resource as it should be (settable and output fields, no name or times); null deletes it. */
  resource: JsonObject | null;
  /** `replace` makes it match; `ensure` only creates it when missing (users may edit it afterwards). */
  mode: 'replace' | 'ensure';
}

/** One area's seeds for an organization; may read the current read model (to delete what is gone). */
export type SeedSource = (org: OrganizationConfig, reads: ReadStore) => Promise<Seed[]>;

/** Every area's seed source, applied in this order after the organization and its access. */
export const SEED_SOURCES: readonly SeedSource[] = [
  systemTagSeeds,
  // The notification policy singleton: created once, then the organization's to edit.
  async () => [{ spec: issueNotificationPolicySpec, id: 'default', resource: DEFAULT_ISSUE_NOTIFICATION_POLICY, mode: 'ensure' }],
  catalogSeeds,
];
