/**
 * Deployments (spec part 2, "Deployment"): created PENDING whatever the caller sends, then moved by
 * the UpdateDeploymentStatus action, whose event also carries the status event of the changelog.
 */
import { DEPLOYMENT_STATUSES, type DeploymentStatus } from '@svc/contracts/deployments/enums';
import type { Actor } from '../shared/decider';
import { failedPrecondition, invalid } from '../shared/domain-error';
import { isPlainObject, type JsonObject } from '../shared/json-path';
import { commonId, type Resource, type ResourceSpec } from '../shared/resource';
import { ENVIRONMENT_ID, ENVIRONMENT_RULE } from './deployment-environment.resource';
import { normaliseTime } from '../shared/time';

const PENDING: DeploymentStatus = 'DEPLOYMENT_STATUS_PENDING';
/** A deployment that reached one of these is finished: completeTime is set and the status is final. */
export const TERMINAL_STATUSES: readonly DeploymentStatus[] = [
  'DEPLOYMENT_STATUS_SUCCESS',
  'DEPLOYMENT_STATUS_FAILURE',
  'DEPLOYMENT_STATUS_CANCELLED',
];
const isTerminal = (status: unknown) => TERMINAL_STATUSES.includes(status as DeploymentStatus);
const isStatus = (status: unknown): status is DeploymentStatus => DEPLOYMENT_STATUSES.includes(status as DeploymentStatus);

/** Label keys become document paths and filter members (`labels.environment`): no dots, no `$`. */
const LABEL_KEY = /^[a-zA-Z][a-zA-Z0-9_-]{0,62}$/;
const MAX_LABELS = 64;
const MAX_LABEL_VALUE = 1024;
const REPOSITORY = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

export const STATUS_CHANGED = 'DeploymentStatusChanged';

/** What a status event records (spec: deployment status event), carried by DeploymentStatusChanged. */
export interface StatusEventPayload {
  status: DeploymentStatus;
  description?: string;
  eventTime: string;
}

/** The environment a deployment names (`labels.environment`), if any. */
export function environmentOf(deployment: JsonObject): string | undefined {
  const labels = deployment.labels;
  if (!isPlainObject(labels)) return undefined;
  const environment = labels.environment;
  return typeof environment === 'string' && environment !== '' ? environment : undefined;
}

function checkLabels(deployment: Resource): void {
  const labels = deployment.labels;
  if (labels === undefined) return;
  if (!isPlainObject(labels)) throw invalid('deployment.labels must be a map of string to string');
  const entries = Object.entries(labels);
  if (entries.length > MAX_LABELS) throw invalid(`deployment.labels has ${entries.length} entries; at most ${MAX_LABELS} are allowed`);
  for (const [key, value] of entries) {
    if (!LABEL_KEY.test(key)) {
      throw invalid(`label key '${key}' must start with a letter and contain only letters, digits, hyphens and underscores (at most 63 characters)`);
    }
    if (typeof value !== 'string') throw invalid(`label '${key}' must have a string value`);
    if (value.length > MAX_LABEL_VALUE) throw invalid(`label '${key}' is longer than ${MAX_LABEL_VALUE} characters`);
  }
  const environment = labels.environment;
  if (environment !== undefined && !ENVIRONMENT_ID.test(environment as string)) {
    throw invalid(`labels.environment names a deployment environment: ${ENVIRONMENT_RULE} (got '${String(environment)}')`);
  }
  const repository = labels.repository;
  if (repository !== undefined && !REPOSITORY.test(repository as string)) {
    throw invalid(`labels.repository must look like 'owner/repo' (got '${String(repository)}')`);
  }
}

/**
 * UpdateDeploymentStatus. Statuses move forward only: PENDING, then IN_PROGRESS, then one terminal
 * status (SUCCESS, FAILURE, CANCELLED), which is final. A repeat of a non-terminal status is a
 * progress report (another status event, times unchanged); a repeat of the terminal status is a
 * redelivery and changes nothing. startTime is set when the deployment first leaves PENDING,
 * completeTime when it reaches a terminal status, both to the event's time.
 */
export function changeStatus(deployment: Resource, input: JsonObject, actor: Actor) {
  const next = input.status;
  if (!isStatus(next)) throw invalid(`status must be one of ${DEPLOYMENT_STATUSES.join(', ')}`);
  const current = deployment.status as DeploymentStatus;
  const description = input.description === undefined || input.description === '' ? undefined : String(input.description);
  const eventTime = input.eventTime === undefined || input.eventTime === '' ? actor.now : normaliseTime(input.eventTime, 'event_time');
  if (isTerminal(current)) {
    if (next === current) return null;
    throw failedPrecondition(`deployment '${deployment.name}' already finished with ${current}; its status cannot change`);
  }
  if (next === PENDING && current !== PENDING) {
    throw failedPrecondition(`deployment '${deployment.name}' is ${current}; it cannot go back to ${PENDING}`);
  }
  const set: JsonObject = {};
  if (next !== current) set.status = next;
  if (deployment.startTime === undefined && next !== PENDING) set.startTime = eventTime;
  if (isTerminal(next)) {
    const startTime = (set.startTime ?? deployment.startTime) as string;
    if (eventTime < startTime) throw invalid(`event_time ${eventTime} is before the deployment's start_time ${startTime}`);
    set.completeTime = eventTime;
  }
  const statusEvent: StatusEventPayload = { status: next, ...(description === undefined ? {} : { description }), eventTime };
  return { event: STATUS_CHANGED, set, data: { statusEvent: statusEvent as unknown as JsonObject } };
}

export const deploymentSpec: ResourceSpec = {
  kind: 'Deployment',
  collection: 'deployments',
  idRequired: true,
  // The spec gives no rule for deployment IDs; we apply the common one (wire convention 5) with a 128 cap.
  ...commonId('deployment_id'),
  settable: ['source', 'labels', 'description', 'externalId', 'externalUrl'],
  undeletable: false,
  // The status is the server's: PENDING on creation, whatever the caller sent (dropped as output only).
  onCreate: (deployment) => ({ ...deployment, status: PENDING }),
  validate: checkLabels,
  actions: { [STATUS_CHANGED]: changeStatus },
};
