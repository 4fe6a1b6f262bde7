/**
 * Statuses of a deployment monitor evaluation. The spec shows only COMPLETED; RUNNING (the agent
 * session still watches) and FAILED (it could not finish) are ours (docs/decisions.md).
 */
export const EVALUATION_STATUSES = [
  'DEPLOYMENT_MONITOR_EVALUATION_STATUS_RUNNING',
  'DEPLOYMENT_MONITOR_EVALUATION_STATUS_COMPLETED',
  'DEPLOYMENT_MONITOR_EVALUATION_STATUS_FAILED',
] as const;
export type EvaluationStatus = (typeof EVALUATION_STATUSES)[number];
