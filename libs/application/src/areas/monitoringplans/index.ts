import { monitoringPlansApi } from '@svc/contracts/monitoringplans/monitoringplans.contract';
import { monitoringPlanSpec } from '@svc/domain/monitoringplans/monitoring-plan.resource';
import { resourceArea, withReactors } from '../area';
import { planActivationReactor } from './plan-activation.reactor';
import { planIssuesReactor } from './plan-issues.reactor';

/**
 * Monitoring plans: a kit read model (Get, List) written from the plans' own events, the reactor that
 * activates plans from successful deployments, and the one that carries links to the issues.
 */
export const monitoringPlansArea = withReactors(resourceArea(monitoringPlanSpec, monitoringPlansApi), planActivationReactor, planIssuesReactor);
