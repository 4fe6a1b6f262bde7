import type { Actor } from '../shared/decider';
import type { ResourceCommand, ResourceEvent } from '../shared/resource';
import { resourceDecider } from '../shared/resource.decider';
import { givenFor } from '../shared/testing';
import { evaluationSpec } from './evaluation.resource';

const T0 = '2024-05-01T10:00:00.000Z';
const T1 = '2024-05-01T10:30:00.000Z';
const at = (now: string): Actor => ({ org: 'acme', actor: 'service-accounts/runtime', subject: 'agents/watcher', permissions: ['AGENTS_WRITE'], now });
const given = givenFor(resourceDecider(evaluationSpec));
const record = (resource: Record<string, unknown>, now = T0): ResourceCommand => ({ type: 'Put', actor: at(now), id: 'e1', resource });

const first = {
  sessionName: 'agents/watcher/sessions/s1',
  environment: 'prod',
  repository: 'acme/shop',
  headSha: 'abc1234',
  prNumber: 42,
  deploymentTime: '2024-05-01T11:59:00+02:00',
};
const recorded: ResourceEvent = {
  type: 'DeploymentMonitorEvaluationCreated',
  data: {
    resource: {
      name: 'deployment-monitor-evaluations/e1',
      status: 'DEPLOYMENT_MONITOR_EVALUATION_STATUS_RUNNING',
      ...first,
      deploymentTime: '2024-05-01T09:59:00.000Z',
      createTime: T0,
      updateTime: T0,
    },
  },
};
const completed: ResourceEvent = {
  type: 'DeploymentMonitorEvaluationUpdated',
  data: {
    set: { status: 'DEPLOYMENT_MONITOR_EVALUATION_STATUS_COMPLETED', summary: 'no regressions', overallStatus: 'successful' },
    unset: [],
    updateTime: T1,
  },
};

describe('deployment monitor evaluations', () => {
  it('the first record creates the evaluation, RUNNING unless it says otherwise, with deployment_time normalised', () => {
    given().when(record(first)).then([recorded]);
  });

  it('a later record reports progress; the fields naming the session and the deployment stay as first recorded', () => {
    given([recorded])
      .when(record({ status: 'DEPLOYMENT_MONITOR_EVALUATION_STATUS_COMPLETED', summary: 'no regressions', overallStatus: 'successful', environment: 'dev' }, T1))
      .then([completed]);
  });

  it('a finished evaluation is final, but recording the same again changes nothing', () => {
    given([recorded, completed]).when(record({ summary: 'second thoughts' }, T1)).thenFails('FAILED_PRECONDITION', /finished evaluation/);
    given([recorded, completed]).when(record({ summary: 'no regressions' }, T1)).thenNothing();
  });

  it('checks the shapes of names, SHAs, numbers and times', () => {
    given().when(record({ sessionName: 'sessions/s1' })).thenFails('INVALID_ARGUMENT', /session_name/);
    given().when(record({ headSha: 'main' })).thenFails('INVALID_ARGUMENT', /head_sha/);
    given().when(record({ repository: 'shop' })).thenFails('INVALID_ARGUMENT', /repository/);
    given().when(record({ prNumber: 0 })).thenFails('INVALID_ARGUMENT', /pr_number/);
    given().when(record({ deploymentTime: 'noon' })).thenFails('INVALID_ARGUMENT', /deployment_time/);
    given().when(record({ status: 'DONE' })).thenFails('INVALID_ARGUMENT', /status must be one of/);
  });
});
