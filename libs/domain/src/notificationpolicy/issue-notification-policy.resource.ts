/**
 * The issue notification policy (spec part 3): one per organization, `issue-notification-policies/default`,
 * seeded by the service and edited with Update only. Rule: `connections` names existing connections,
 * each once. `state` is server-owned; the spec shows only ACTIVE and says an update leaves it unchanged.
 */
import { invalid } from '../shared/domain-error';
import type { JsonObject } from '../shared/json-path';
import type { ResourceSpec } from '../shared/resource';

export const ISSUE_NOTIFICATION_POLICY_STATE_ACTIVE = 'ISSUE_NOTIFICATION_POLICY_STATE_ACTIVE';

const CONNECTION_NAME = /^connections\/[^/]+$/;

const connectionsOf = (policy: JsonObject): string[] =>
  Array.isArray(policy.connections) ? policy.connections.filter((c): c is string => typeof c === 'string') : [];

export const issueNotificationPolicySpec: ResourceSpec = {
  kind: 'IssueNotificationPolicy',
  collection: 'issue-notification-policies',
  idRequired: true,
  // Only the service creates it (a Sync seed); there is no Create method to apply this rule to.
  idPattern: /^default$/,
  idRule: "the issue notification policy is the singleton 'issue-notification-policies/default'",
  settable: ['description', 'connections', 'prompt'],
  defaults: { state: ISSUE_NOTIFICATION_POLICY_STATE_ACTIVE },
  undeletable: false,
  // Checked before validate's finer rules; a malformed name simply is not found there.
  references: (policy) => connectionsOf(policy).filter((name) => CONNECTION_NAME.test(name)),
  validate(policy) {
    const seen = new Set<string>();
    for (const [i, name] of connectionsOf(policy).entries()) {
      if (!CONNECTION_NAME.test(name)) throw invalid(`connections[${i}] must look like 'connections/{connection_id}', got '${name}'`);
      if (seen.has(name)) throw invalid(`connections[${i}]: '${name}' is listed twice`);
      seen.add(name);
    }
  },
};

/** The policy as the service seeds it in every organization (users edit it afterwards). */
export const DEFAULT_ISSUE_NOTIFICATION_POLICY: JsonObject = { state: ISSUE_NOTIFICATION_POLICY_STATE_ACTIVE };
