import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { deploymentsApi, statusEventsApi, UPDATE_DEPLOYMENT_STATUS, UpdateDeploymentStatusRequest } from '@svc/contracts/deployments/deployments.contract';
import { deploymentSpec, STATUS_CHANGED } from '@svc/domain/deployments/deployment.resource';
import { ResourceKit } from '../resource-kit/resource-kit';

/**
 * svc.deployments.v1.DeploymentsService beyond the kit resources its area registers (deployments and
 * environments): the status change as a kit action, and the status-event changelog under a deployment.
 */
@Injectable()
class DeploymentsMethods implements OnModuleInit {
  constructor(private readonly kit: ResourceKit) {}

  onModuleInit(): void {
    this.kit.action(deploymentSpec, deploymentsApi, {
      method: UPDATE_DEPLOYMENT_STATUS,
      action: STATUS_CHANGED,
      request: UpdateDeploymentStatusRequest,
      toAction: ({ name, status, description, eventTime }) => ({ name, input: { status, description, eventTime } }),
    });
    this.kit.changelog(deploymentSpec, statusEventsApi);
  }
}

@Module({ providers: [DeploymentsMethods] })
export class DeploymentsModule {}
