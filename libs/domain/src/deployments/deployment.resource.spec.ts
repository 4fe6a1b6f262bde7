import type { Actor } from '../shared/decider';
import type { Resource, ResourceCommand, ResourceEvent } from '../shared/resource';
import { resourceDecider } from '../shared/resource.decider';
import { givenFor } from '../shared/testing';
import { deploymentEnvironmentSpec, environmentFromDeployment } from './deployment-environment.resource';
import { deploymentSpec } from './deployment.resource';

const T0 = '2024-05-01T10:00:00.000Z';
const T1 = '2024-05-01T10:05:00.000Z';
const T2 = '2024-05-01T10:09:00.000Z';
const at = (now: string): Actor => ({ org: 'acme', actor: 'users/al', subject: 'users/al', permissions: ['CHANGE_MONITOR_WRITE'], now });
const given = givenFor(resourceDecider(deploymentSpec));

const create = (resource: Record<string, unknown>, id = 'd1'): ResourceCommand => ({ type: 'Create', actor: at(T0), id, resource });
const setStatus = (status: string, extra: Record<string, unknown> = {}, now = T1): ResourceCommand => ({
  type: 'Act',
  action: 'DeploymentStatusChanged',
  actor: at(now),
  name: 'deployments/d1',
  input: { status, ...extra },
});
const d1: Resource = {
  name: 'deployments/d1',
  labels: { environment: 'prod', repository: 'acme/shop' },
  status: 'DEPLOYMENT_STATUS_PENDING',
  createTime: T0,
  updateTime: T0,
};
const created: ResourceEvent = { type: 'DeploymentCreated', data: { resource: d1 } };
const changed = (set: Record<string, unknown>, statusEvent: Record<string, unknown>, updateTime = T1): ResourceEvent => ({
  type: 'DeploymentStatusChanged',
  data: { statusEvent, set, unset: [], updateTime },
});
const started = changed({ status: 'DEPLOYMENT_STATUS_IN_PROGRESS', startTime: T1 }, { status: 'DEPLOYMENT_STATUS_IN_PROGRESS', eventTime: T1 });
const succeeded = changed(
  { status: 'DEPLOYMENT_STATUS_SUCCESS', completeTime: T2 },
  { status: 'DEPLOYMENT_STATUS_SUCCESS', description: 'done', eventTime: T2 },
  T2,
);

describe('deployments: create', () => {
  it('is PENDING on creation whatever the caller sends', () => {
    given().when(create({ labels: d1.labels, status: 'DEPLOYMENT_STATUS_SUCCESS', startTime: T2 })).then([created]);
  });

  it('keeps label keys and checks them, and the environment and repository labels', () => {
    given().when(create({ labels: { 'a.b': 'x' } })).thenFails('INVALID_ARGUMENT', /label key 'a.b'/);
    given().when(create({ labels: { env: 3 } })).thenFails('INVALID_ARGUMENT', /label 'env' must have a string value/);
    given().when(create({ labels: { environment: 'prod/eu' } })).thenFails('INVALID_ARGUMENT', /labels.environment/);
    given().when(create({ labels: { repository: 'shop' } })).thenFails('INVALID_ARGUMENT', /owner\/repo/);
    given().when(create({ labels: 'prod' })).thenFails('INVALID_ARGUMENT', /map of string to string/);
  });
});

describe('deployments: UpdateDeploymentStatus', () => {
  it('IN_PROGRESS sets startTime to the event time (default: the request time) and carries the status event', () => {
    given([created]).when(setStatus('DEPLOYMENT_STATUS_IN_PROGRESS')).then([started]);
  });

  it('a terminal status sets completeTime; the source event time is normalised', () => {
    given([created, started])
      .when(setStatus('DEPLOYMENT_STATUS_SUCCESS', { description: 'done', eventTime: '2024-05-01T12:09:00+02:00' }, T2))
      .then([succeeded]);
  });

  it('going straight from PENDING to a terminal status sets both times', () => {
    given([created])
      .when(setStatus('DEPLOYMENT_STATUS_FAILURE', { eventTime: T2 }))
      .thenState((state) => expect(state.resource).toMatchObject({ status: 'DEPLOYMENT_STATUS_FAILURE', startTime: T2, completeTime: T2 }));
  });

  it('a repeated non-terminal status is a progress report: another status event, times unchanged', () => {
    given([created, started])
      .when(setStatus('DEPLOYMENT_STATUS_IN_PROGRESS', { description: 'half way', eventTime: T2 }, T2))
      .then([changed({}, { status: 'DEPLOYMENT_STATUS_IN_PROGRESS', description: 'half way', eventTime: T2 }, T2)]);
  });

  it('a terminal status is final; repeating it changes nothing', () => {
    given([created, started, succeeded]).when(setStatus('DEPLOYMENT_STATUS_SUCCESS')).thenNothing();
    given([created, started, succeeded]).when(setStatus('DEPLOYMENT_STATUS_FAILURE')).thenFails('FAILED_PRECONDITION', /already finished/);
  });

  it('never goes back to PENDING', () => {
    given([created, started]).when(setStatus('DEPLOYMENT_STATUS_PENDING')).thenFails('FAILED_PRECONDITION', /cannot go back/);
  });

  it('rejects an unknown status, a malformed event time, and completion before the start', () => {
    given([created]).when(setStatus('DEPLOYMENT_STATUS_DONE')).thenFails('INVALID_ARGUMENT', /status must be one of/);
    given([created]).when(setStatus('DEPLOYMENT_STATUS_IN_PROGRESS', { eventTime: 'yesterday' })).thenFails('INVALID_ARGUMENT', /event_time/);
    given([created, started]).when(setStatus('DEPLOYMENT_STATUS_SUCCESS', { eventTime: T0 })).thenFails('INVALID_ARGUMENT', /before the deployment's start_time/);
  });

  it('is NOT_FOUND for a deployment that does not exist', () => {
    given().when(setStatus('DEPLOYMENT_STATUS_IN_PROGRESS')).thenFails('NOT_FOUND', /deployment 'deployments\/d1' not found/);
  });
});

describe('deployment environments', () => {
  const environments = givenFor(resourceDecider(deploymentEnvironmentSpec));
  const prod = environmentFromDeployment('prod', T0);
  const update = (resource: Record<string, unknown>, paths: string[], existing: Resource | null = prod): ResourceCommand => ({
    type: 'Update',
    actor: at(T1),
    name: 'deployment-environments/prod',
    resource,
    scope: { paths },
    existing,
  });

  it('exist with monitoring off from the first deployment naming them', () => {
    expect(prod).toEqual({ name: 'deployment-environments/prod', monitoringEnabled: false, createTime: T0, updateTime: T0 });
  });

  it('the first update starts the environment stream from the projected document', () => {
    environments()
      .when(update({ monitoringEnabled: true, description: 'ignored' }, ['monitoringEnabled']))
      .then([
        { type: 'DeploymentEnvironmentCreated', data: { resource: prod } },
        { type: 'DeploymentEnvironmentUpdated', data: { set: { monitoringEnabled: true }, unset: [], updateTime: T1 } },
      ]);
  });

  it('is NOT_FOUND when no deployment named the environment', () => {
    environments().when(update({ monitoringEnabled: true }, ['monitoringEnabled'], null)).thenFails('NOT_FOUND');
  });

  it('the toggle cannot be cleared', () => {
    environments().when(update({ description: 'x' }, ['monitoringEnabled'])).thenFails('INVALID_ARGUMENT', /monitoring_enabled/);
  });
});
