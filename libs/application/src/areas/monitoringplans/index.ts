import { monitoringPlansApi } from '@svc/contracts/monitoringplans/monitoringplans.contract';
import { monitoringPlanSpec } from '@svc/domain/monitoringplans/monitoring-plan.resource';
import { combineProjections } from '@svc/infrastructure/projection/combine';
import { resourceProjection } from '@svc/infrastructure/projection/resource.projection';
import { area } from '../area';
import { planActivationReactor } from './plan-activation.reactor';
import { planIssuesReactor } from './plan-issues.reactor';
import { monitoringRunsProjection } from './runs.projection';

/**
 * Monitoring plans: a kit read model (Get, List) and their runs (one per monitored deployment) written
 * from the plans' own events by one projection, so a write that waits for it reads both; the reactor
 * that activates plans from successful deployments, and the one that carries links to the issues.
 */
export const monitoringPlansArea = area('monitoring-plans', {
  resources: [{ spec: monitoringPlanSpec, api: monitoringPlansApi }],
  projections: [combineProjections('monitoring-plans', 1, [resourceProjection(monitoringPlanSpec, monitoringPlansApi), monitoringRunsProjection])],
  reactors: [planActivationReactor, planIssuesReactor],
});
