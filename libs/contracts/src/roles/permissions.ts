/** Permission keys (../shared/spec/permissions.md). `roles/admin` holds every key. */
export const PERMISSIONS = [
  'ROLES_WRITE',
  'MEMBERS_WRITE',
  'INTEGRATIONS_WRITE',
  'AGENTS_WRITE',
  'KNOWLEDGE_WRITE',
  'INVESTIGATIONS_WRITE',
  'CHANGE_MONITOR_WRITE',
  'INDICATORS_WRITE',
  'BILLING_WRITE',
  'NOTIFICATIONS_PUBLISH',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}

/** Permissions of an agent's organization-level service identity (machine credentials, session tokens). */
export const AGENT_IDENTITY_PERMISSIONS: readonly Permission[] = [
  'AGENTS_WRITE',
  'KNOWLEDGE_WRITE',
  'INVESTIGATIONS_WRITE',
  'INDICATORS_WRITE',
];
