/**
 * Monitoring runs (the legacy MonitoringRunService, shapes ours): one per monitored-deployment entry,
 * `monitoring-plans/{plan}/runs/{environment id}`, written when the plan's MonitoringPlanActivated
 * appends the entry. A view of the plan's stream: nothing else writes it.
 */
import { monitoringRunsApi } from '@svc/contracts/monitoringplans/monitoringplans.contract';
import { monitoringPlanSpec, PLAN_EVENTS } from '@svc/domain/monitoringplans/monitoring-plan.resource';
import { resourceStreamId } from '@svc/domain/shared/resource';
import { docId, type Projection } from '@svc/infrastructure/projection/projection';
import { changelogIndexes } from '@svc/infrastructure/projection/resource.projection';

const PLAN_STREAMS = resourceStreamId(monitoringPlanSpec, '', '').slice(0, -1);
const RUNS = monitoringRunsApi.store;

interface Entry {
  environment: string;
  deployment?: string;
  deployTime: string;
  intendedEffectConfirmed: boolean;
}

export const monitoringRunsProjection: Projection = {
  name: RUNS,
  version: 1,
  collections: [RUNS],
  indexes: changelogIndexes(monitoringRunsApi),
  handle(e) {
    if (!e.record.streamId.startsWith(PLAN_STREAMS) || e.event.type !== PLAN_EVENTS.activated) return [];
    const data = e.event.data as { entries?: Entry[]; updateTime: string };
    return (data.entries ?? []).map((entry) => {
      const name = `${e.resourceName}/runs/${entry.environment.split('/').pop()}`;
      const doc = {
        _id: docId(e.org, name),
        _org: e.org,
        name,
        plan: e.resourceName,
        environment: entry.environment,
        ...(entry.deployment ? { deployment: entry.deployment } : {}),
        startTime: entry.deployTime,
        intendedEffectConfirmed: entry.intendedEffectConfirmed,
        state: 'MONITORING_RUN_STATE_RUNNING',
        createTime: data.updateTime,
      };
      return { op: 'insert' as const, collection: RUNS, doc };
    });
  },
};
