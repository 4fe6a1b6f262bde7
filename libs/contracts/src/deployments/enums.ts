/** Enum values of the deployments area (spec part 2, "Deployment"), shared by the wire and the rules. */

/** The spec shows PENDING, IN_PROGRESS and SUCCESS; FAILURE and CANCELLED are ours (docs/decisions.md). */
export const DEPLOYMENT_STATUSES = [
  'DEPLOYMENT_STATUS_PENDING',
  'DEPLOYMENT_STATUS_IN_PROGRESS',
  'DEPLOYMENT_STATUS_SUCCESS',
  'DEPLOYMENT_STATUS_FAILURE',
  'DEPLOYMENT_STATUS_CANCELLED',
] as const;
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];

/** The spec shows CODEHOST "for example"; API (a direct caller) and MANUAL are ours. */
export const DEPLOYMENT_SOURCES = ['DEPLOYMENT_SOURCE_CODEHOST', 'DEPLOYMENT_SOURCE_API', 'DEPLOYMENT_SOURCE_MANUAL'] as const;
