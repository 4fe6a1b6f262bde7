/**
 * Deployment monitor evaluations (spec part 2): what an automated agent session concluded about a
 * deployment. Recorded by the agent runtime (RecordDeploymentMonitorEvaluation, an extension), first
 * while it runs and again when it finishes; a finished evaluation is final.
 */
import { EVALUATION_STATUSES, type EvaluationStatus } from '@svc/contracts/deploymonitor/enums';
import { failedPrecondition, invalid } from '../shared/domain-error';
import { commonId, wireField, type Resource, type ResourceSpec } from '../shared/resource';
import { normaliseTime } from '../shared/time';

const FINAL: readonly EvaluationStatus[] = ['DEPLOYMENT_MONITOR_EVALUATION_STATUS_COMPLETED', 'DEPLOYMENT_MONITOR_EVALUATION_STATUS_FAILED'];
const SESSION = /^agents\/[^/]+\/sessions\/[^/]+$/;
const REPOSITORY = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
const SHA = /^[0-9a-fA-F]{7,64}$/;

export const evaluationSpec: ResourceSpec = {
  kind: 'DeploymentMonitorEvaluation',
  collection: 'deployment-monitor-evaluations',
  idRequired: true,
  ...commonId('deployment_monitor_evaluation_id'),
  settable: [
    'sessionName',
    'status',
    'codehostRunId',
    'environment',
    'repository',
    'headSha',
    'baseSha',
    'prNumber',
    'deploymentTime',
    'summary',
    'overallStatus',
  ],
  // The session and the deployment it watched identify the evaluation; later records report progress.
  immutable: ['sessionName', 'environment', 'repository', 'headSha', 'baseSha', 'prNumber', 'deploymentTime'],
  defaults: { status: 'DEPLOYMENT_MONITOR_EVALUATION_STATUS_RUNNING' },
  undeletable: false,
  // Stored in the `toISOString()` form, so deployment_time filters and orders as time.
  onCreate: (evaluation) =>
    evaluation.deploymentTime === undefined ? evaluation : { ...evaluation, deploymentTime: normaliseTime(evaluation.deploymentTime, 'deployment_time') },
  validate(evaluation: Resource, { previous }) {
    if (previous && FINAL.includes(previous.status as EvaluationStatus)) {
      throw failedPrecondition(`evaluation '${evaluation.name}' is ${String(previous.status)}; a finished evaluation cannot change`);
    }
    const check = (field: string, rule: RegExp, shape: string) => {
      const value = evaluation[field];
      if (value !== undefined && !(typeof value === 'string' && rule.test(value))) {
        throw invalid(`${wireField(field)} must be ${shape} (got '${String(value)}')`);
      }
    };
    check('sessionName', SESSION, "a session name 'agents/{agent}/sessions/{session}'");
    check('repository', REPOSITORY, "'owner/repo'");
    check('headSha', SHA, 'a commit SHA (7 to 64 hexadecimal digits)');
    check('baseSha', SHA, 'a commit SHA (7 to 64 hexadecimal digits)');
    if (evaluation.prNumber !== undefined && !(Number.isInteger(evaluation.prNumber) && (evaluation.prNumber as number) > 0)) {
      throw invalid(`pr_number must be a positive integer (got '${String(evaluation.prNumber)}')`);
    }
    if (!EVALUATION_STATUSES.includes(evaluation.status as EvaluationStatus)) {
      throw invalid(`status must be one of ${EVALUATION_STATUSES.join(', ')}`);
    }
  },
};
