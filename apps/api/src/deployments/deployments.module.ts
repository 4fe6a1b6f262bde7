import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import {
  deploymentEnvironmentsApi,
  deploymentsApi,
  ListDeploymentStatusEventsRequest,
  statusEventsList,
  UPDATE_DEPLOYMENT_STATUS,
  UpdateDeploymentStatusRequest,
} from '@svc/contracts/deployments/deployments.contract';
import { deploymentEnvironmentSpec } from '@svc/domain/deployments/deployment-environment.resource';
import { deploymentSpec, STATUS_CHANGED } from '@svc/domain/deployments/deployment.resource';
import { invalid } from '@svc/domain/shared/domain-error';
import { GetDocumentQuery, ListDocumentsQuery } from '../cqrs/queries';
import { MethodRegistry, type MethodDefinition } from '../http/method-registry';
import { ResourceKit } from '../resource-kit/resource-kit';

const PARENT = /^deployments\/[^/]+$/;

/**
 * svc.deployments.v1.DeploymentsService: deployments and environments through the resource kit,
 * the status change as a kit action, and the status-event changelog as a list under a deployment.
 */
@Injectable()
class DeploymentsMethods implements OnModuleInit {
  constructor(
    private readonly kit: ResourceKit,
    private readonly registry: MethodRegistry,
    private readonly queries: QueryBus,
  ) {}

  onModuleInit(): void {
    this.kit.register(deploymentSpec, deploymentsApi);
    this.kit.register(deploymentEnvironmentSpec, deploymentEnvironmentsApi);
    this.kit.action(deploymentSpec, deploymentsApi, {
      method: UPDATE_DEPLOYMENT_STATUS,
      action: STATUS_CHANGED,
      request: UpdateDeploymentStatusRequest,
      toAction: ({ name, status, description, eventTime }) => ({ name, input: { status, description, eventTime } }),
    });
    const listStatusEvents: MethodDefinition<ListDeploymentStatusEventsRequest> = {
      service: statusEventsList.service,
      method: statusEventsList.method,
      request: ListDeploymentStatusEventsRequest,
      handle: async ({ principal, request }) => {
        const parent = request.parent;
        if (!PARENT.test(parent)) throw invalid(`parent must look like 'deployments/{deployment_id}', got '${parent}'`);
        // A deployment of another organization is simply not found (NOT_FOUND), like a missing one.
        await this.queries.execute(new GetDocumentQuery(deploymentSpec.collection, principal.org, parent, 'deployment'));
        const page = await this.queries.execute(
          new ListDocumentsQuery({ ...statusEventsList, softDelete: false }, principal.org, request, { deployment: parent }),
        );
        return { [statusEventsList.plural]: page.items, nextPageToken: page.nextPageToken };
      },
    };
    this.registry.register(listStatusEvents as MethodDefinition<object>);
  }
}

@Module({ providers: [DeploymentsMethods] })
export class DeploymentsModule {}
