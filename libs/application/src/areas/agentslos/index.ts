/**
 * Agent SLOs and their records as one projection (one checkpoint), so RecordSloEvaluation, which
 * waits for it, is answered once both the SLO and its new record are readable. Records are a view
 * of the SLO's own AgentSloEvaluationRecorded events (nothing writes them separately).
 */
import { agentSloRecordsApi, agentSlosApi } from '@svc/contracts/agentslos/agentslos.contract';
import { agentSloSpec, SLO_EVALUATION_RECORDED, type SloEvaluationData } from '@svc/domain/agentslos/agent-slo.resource';
import { resourceStreamId } from '@svc/domain/shared/resource';
import { combineProjections } from '@svc/infrastructure/projection/combine';
import { docId, type Projection } from '@svc/infrastructure/projection/projection';
import { changelogIndexes, resourceProjection } from '@svc/infrastructure/projection/resource.projection';
import { area } from '../area';

const SLO_STREAMS = resourceStreamId(agentSloSpec, '', '').slice(0, -1);
const RECORDS = agentSloRecordsApi.store;

const sloRecords: Projection = {
  name: RECORDS,
  version: 1,
  collections: [RECORDS],
  indexes: changelogIndexes(agentSloRecordsApi),
  handle(e) {
    if (!e.record.streamId.startsWith(SLO_STREAMS)) return [];
    if (e.event.type === SLO_EVALUATION_RECORDED) {
      const { record, seq } = e.event.data as unknown as SloEvaluationData;
      return [{ op: 'insert', collection: RECORDS, doc: { _id: docId(e.org, record.name), _org: e.org, _seq: seq, agentSlo: e.resourceName, ...record } }];
    }
    return [];
  },
};

export const agentSlosProjection = combineProjections('agentslos', 1, [resourceProjection(agentSloSpec, agentSlosApi), sloRecords]);

export const agentSlosArea = area('agentslos', {
  resources: [{ spec: agentSloSpec, api: agentSlosApi }],
  projections: [agentSlosProjection],
});
