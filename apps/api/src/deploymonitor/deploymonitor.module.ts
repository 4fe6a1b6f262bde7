import { resourceResponse } from '@svc/contracts/shared/responses';
import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import {
  evaluationsApi,
  RECORD_EVALUATION,
  RecordDeploymentMonitorEvaluationRequest,
} from '@svc/contracts/deploymonitor/deploymonitor.contract';
import { evaluationSpec } from '@svc/domain/deploymonitor/evaluation.resource';
import { actorOf } from '../auth/principal';
import { MethodRegistry } from '../http/method-registry';
import { defineMethod } from '../resource-kit/method-builders';
import { ResourceKit } from '../resource-kit/resource-kit';

/**
 * svc.deploy_monitor.v1.DeploymentMonitorEvaluationService: Get and List are the kit's (its area),
 * plus RecordDeploymentMonitorEvaluation (an extension) for the agent runtime, which records an
 * evaluation and then its progress under the same ID (the kit's Put).
 */
@Injectable()
class DeploymentMonitorMethods implements OnModuleInit {
  constructor(
    private readonly kit: ResourceKit,
    private readonly registry: MethodRegistry,
  ) {}

  onModuleInit(): void {
    this.registry.register(
      defineMethod(evaluationsApi, RECORD_EVALUATION, { request: RecordDeploymentMonitorEvaluationRequest, response: resourceResponse(evaluationsApi) }, 'write', async ({ principal, request }) => {
        const id = request.deploymentMonitorEvaluationId;
        const resource = { ...request.deploymentMonitorEvaluation } as Record<string, unknown>;
        const name = `${evaluationSpec.collection}/${id}`;
        const command = { type: 'Put', actor: actorOf(principal), id, resource } as const;
        return { [evaluationsApi.singular]: await this.kit.send(evaluationSpec, request.requestId, name, command) };
      }),
    );
  }
}

@Module({ providers: [DeploymentMonitorMethods] })
export class DeploymonitorModule {}
