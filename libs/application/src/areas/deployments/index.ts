import { deploymentEnvironmentsApi, deploymentsApi } from '@svc/contracts/deployments/deployments.contract';
import { deploymentEnvironmentSpec } from '@svc/domain/deployments/deployment-environment.resource';
import { deploymentSpec } from '@svc/domain/deployments/deployment.resource';
import { area } from '../area';
import { deploymentsProjection } from './deployments.projection';

/** Deployments and environments, both served (and waited for) by the one combined projection. */
export const deploymentsArea = area('deployments', {
  resources: [
    { spec: deploymentSpec, api: deploymentsApi },
    { spec: deploymentEnvironmentSpec, api: deploymentEnvironmentsApi },
  ],
  projections: [deploymentsProjection],
});
