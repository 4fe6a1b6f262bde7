import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import {
  deploymentEnvironmentsApi,
  deploymentsApi,
  statusEventsApi,
  UPDATE_DEPLOYMENT_STATUS,
  UpdateDeploymentStatusRequest,
} from '@svc/contracts/deployments/deployments.contract';
import { deploymentEnvironmentSpec } from '@svc/domain/deployments/deployment-environment.resource';
import { deploymentSpec, STATUS_CHANGED } from '@svc/domain/deployments/deployment.resource';
import { ResourceKit } from '../resource-kit/resource-kit';

/**
 * svc.deployments.v1.DeploymentsService: deployments and environments through the resource kit,
 * the status change as a kit action, and the status-event changelog as a list under a deployment.
 */
@Injectable()
class DeploymentsMethods implements OnModuleInit {
  constructor(private readonly kit: ResourceKit) {}

  onModuleInit(): void {
    this.kit.register(deploymentSpec, deploymentsApi);
    this.kit.register(deploymentEnvironmentSpec, deploymentEnvironmentsApi);
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
