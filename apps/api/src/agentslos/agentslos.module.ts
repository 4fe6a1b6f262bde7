import { Inject, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import {
  agentSloRecordsApi,
  agentSlosApi,
  ListAgentSloRecordsResponse,
  RECORD_SLO_EVALUATION,
  RecordSloEvaluationRequest,
  RecordSloEvaluationResponse,
} from '@svc/contracts/agentslos/agentslos.contract';
import { ParentListRequest } from '@svc/contracts/shared/requests';
import { agentSloSpec, SLO_EVALUATION_RECORDED, type SloRecord } from '@svc/domain/agentslos/agent-slo.resource';
import { READ_STORE } from '@svc/infrastructure/nest/tokens';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { actorOf } from '../auth/principal';
import { MethodRegistry } from '../http/method-registry';
import { defineMethod, listMethod } from '../resource-kit/method-builders';
import { ResourceReferences } from '../resource-kit/references';
import { nameChecker } from '../resource-kit/request-envelopes';
import { ResourceKit } from '../resource-kit/resource-kit';

/**
 * svc.agentslos.v1.AgentSlosService beyond the kit resource its area registers: RecordSloEvaluation
 * (a kit action answering the SLO and the new record) and ListAgentSloRecords. Records of a deleted
 * SLO are gone with it (the SLO is soft-deleted: Get still shows its last state, convention 8).
 */
@Injectable()
class AgentSloMethods implements OnModuleInit {
  private readonly references: ResourceReferences;

  constructor(
    private readonly kit: ResourceKit,
    private readonly registry: MethodRegistry,
    private readonly queries: QueryBus,
    @Inject(READ_STORE) reads: ReadStore,
  ) {
    this.references = new ResourceReferences(reads);
  }

  onModuleInit(): void {
    const checkName = nameChecker(agentSloSpec, 'id', 'slo_name');
    const { store, filters, orderBy, defaultOrder } = agentSloRecordsApi;
    this.registry.register(
      defineMethod(agentSlosApi, RECORD_SLO_EVALUATION, { request: RecordSloEvaluationRequest, response: RecordSloEvaluationResponse }, 'write', async ({ principal, request }) => {
        const name = checkName(request.sloName);
        const input = { score: request.score, notes: request.notes, sessionName: request.sessionName };
        const slo = await this.kit.send(agentSloSpec, request.requestId, name, { type: 'Act', action: SLO_EVALUATION_RECORDED, actor: actorOf(principal), name, input });
        const record = ((slo.recentRecords ?? []) as SloRecord[]).at(-1);
        // The evaluation just appended its record: an SLO without one is an internal fault.
        if (!record) throw new Error(`${name} has no record after an evaluation`);
        return { agentSlo: slo, agentSloRecord: record };
      }),
      listMethod<ParentListRequest>(this.queries, agentSloRecordsApi, agentSloRecordsApi.methods.list, {
        request: ParentListRequest,
        spec: { collection: store, filters, orderBy, defaultOrder, softDelete: false },
        key: agentSloRecordsApi.plural,
        response: ListAgentSloRecordsResponse,
        // The SLO must be live: deleting it deletes its records (spec: DeleteAgentSlo).
        scope: async ({ principal, request }) => ({ agentSlo: await this.references.existing(agentSloSpec, principal.org, request.parent, 'parent', true) }),
        shape: ({ agentSlo: _parent, ...record }) => record,
      }),
    );
  }
}

@Module({ providers: [AgentSloMethods] })
export class AgentSlosModule {}
