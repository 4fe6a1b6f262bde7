import type { RecordedEvent } from '@svc/infrastructure/event-store/event-store.port';
import { select } from './plan-activation.reactor';

const record = (streamId: string, type: string, data: Record<string, unknown>): RecordedEvent =>
  ({ id: 'e1', streamId, type, data, revision: 1n, position: { commit: 1n, prepare: 1n }, metadata: { org: 'acme', occurredAt: '2026-01-01T00:00:00Z' } }) as unknown as RecordedEvent;

describe('plan-activation reactor: which events are jobs', () => {
  it('a deployment that succeeded, keyed by its stream', () => {
    expect(select(record('deployment-acme:deployments/d1', 'DeploymentStatusChanged', { set: { status: 'DEPLOYMENT_STATUS_SUCCESS' } }))).toMatchObject({
      kind: 'deployed',
      key: 'deployment-acme:deployments/d1',
      org: 'acme',
      deployment: 'deployments/d1',
    });
    expect(select(record('deployment-acme:deployments/d1', 'DeploymentStatusChanged', { set: { status: 'DEPLOYMENT_STATUS_FAILURE' } }))).toBeNull();
    expect(select(record('deployment-acme:deployments/d1', 'DeploymentStatusChanged', { set: {} }))).toBeNull();
  });

  it('a plan whose merge commit is recorded (at creation or later), not its other events', () => {
    const plan = 'monitoringplan-acme:monitoring-plans/p1';
    expect(select(record(plan, 'MonitoringPlanCreated', { resource: { name: 'monitoring-plans/p1', activation: { mergeSha: 'm', environments: [] } } }))).toMatchObject({ kind: 'merged', plan: 'monitoring-plans/p1' });
    expect(select(record(plan, 'MonitoringPlanCreated', { resource: { name: 'monitoring-plans/p1' } }))).toBeNull();
    expect(select(record(plan, 'MonitoringPlanPullRequestRecorded', { set: { activation: { mergeSha: 'm' } } }))).toMatchObject({ kind: 'merged' });
    expect(select(record(plan, 'MonitoringPlanPullRequestRecorded', { set: { origin: {} } }))).toBeNull();
    expect(select(record(plan, 'MonitoringPlanActivated', { set: { activation: { mergeSha: 'm' } } }))).toBeNull();
  });
});
