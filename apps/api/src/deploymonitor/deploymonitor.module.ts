import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import {
  evaluationsApi,
  RECORD_EVALUATION,
  RecordDeploymentMonitorEvaluationRequest,
} from '@svc/contracts/deploymonitor/deploymonitor.contract';
import { evaluationSpec } from '@svc/domain/deploymonitor/evaluation.resource';
import { actorOf } from '../auth/principal';
import { MethodRegistry, type MethodDefinition } from '../http/method-registry';
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
    const record: MethodDefinition<RecordDeploymentMonitorEvaluationRequest> = {
      service: evaluationsApi.service,
      method: RECORD_EVALUATION,
      permission: evaluationsApi.permission,
      request: RecordDeploymentMonitorEvaluationRequest,
      handle: async ({ principal, request }) => {
        const id = request.deploymentMonitorEvaluationId;
        const resource = { ...request.deploymentMonitorEvaluation } as Record<string, unknown>;
        const name = `${evaluationSpec.collection}/${id}`;
        const command = { type: 'Put', actor: actorOf(principal), id, resource } as const;
        return { [evaluationsApi.singular]: await this.kit.execute(evaluationSpec, principal, request.requestId, name, command) };
      },
    };
    this.registry.register(record as MethodDefinition<object>);
  }
}

@Module({ providers: [DeploymentMonitorMethods] })
export class DeploymonitorModule {}
