/**
 * Agent SLOs (spec part 3, "Agent SLO"), nested under an agent. Each RecordSloEvaluation appends a
 * record as an event of the SLO's own stream; the SLO keeps its 24 latest records, and `healthy`
 * is derived from the latest score against the target and direction, so every write (a record, an
 * update of the target) recomputes it. The records changelog is projected from the same events.
 */
import { RECENT_RECORDS, SLO_DIRECTIONS, type SloDirection } from '@svc/contracts/agentslos/agentslos.contract';
import { agentSpec } from '../agents/agent.resource';
import type { Actor } from '../shared/decider';
import { invalid } from '../shared/domain-error';
import type { JsonObject } from '../shared/json-path';
import { commonId, type Resource, type ResourceSpec } from '../shared/resource';

export const AT_OR_ABOVE: SloDirection = 'SLO_TARGET_DIRECTION_AT_OR_ABOVE';
export const SLO_EVALUATION_RECORDED = 'AgentSloEvaluationRecorded';

/** A record as the SLO and its changelog carry it. */
export interface SloRecord {
  name: string;
  score: number;
  notes?: string;
  sessionName?: string;
  createTime: string;
}

/** Payload of AgentSloEvaluationRecorded beyond the patch: the record appended. */
export interface SloEvaluationData {
  record: SloRecord;
  seq: number;
}

/**
 * Whether `score` meets `target` in `direction`; the boundary meets it both ways (AT_OR_ABOVE:
 * score >= target; AT_OR_BELOW: score <= target). Undefined without a target or without a score.
 */
export function healthOf(target: unknown, direction: unknown, score: number | undefined): boolean | undefined {
  if (typeof target !== 'number' || score === undefined) return undefined;
  return direction === 'SLO_TARGET_DIRECTION_AT_OR_BELOW' ? score <= target : score >= target;
}

function recordsOf(slo: Resource): SloRecord[] {
  return Array.isArray(slo.recentRecords) ? (slo.recentRecords as unknown as SloRecord[]) : [];
}

/** The number of the latest record (records are named `.../records/{n}`), 0 before the first. */
function lastSeq(slo: Resource): number {
  const last = recordsOf(slo).at(-1);
  return last ? Number(last.name.slice(last.name.lastIndexOf('/') + 1)) : 0;
}

/** RecordSloEvaluation: a finite score (NaN and the infinities are refused) appends a record. */
export function recordEvaluation(slo: Resource, input: JsonObject, actor: Actor) {
  const { score, notes, sessionName } = input;
  if (typeof score !== 'number') throw invalid('score is required and must be a finite number');
  if (!Number.isFinite(score)) throw invalid(`score must be a finite number, got ${String(score)}`);
  const seq = lastSeq(slo) + 1;
  const record: SloRecord = { name: `${slo.name}/records/${seq}`, score, createTime: actor.now };
  if (typeof notes === 'string' && notes !== '') record.notes = notes;
  if (typeof sessionName === 'string' && sessionName !== '') record.sessionName = sessionName;
  const recent = [...recordsOf(slo), record].slice(-RECENT_RECORDS);
  const data: SloEvaluationData = { record, seq };
  return { event: SLO_EVALUATION_RECORDED, set: { recentRecords: recent }, data: { ...data } };
}

export const agentSloSpec: ResourceSpec = {
  kind: 'AgentSlo',
  collection: 'slos',
  parent: agentSpec,
  store: 'agentslos',
  idRequired: false,
  ...commonId('agent_slo_id'),
  settable: ['displayName', 'description', 'unit', 'targetValue', 'targetDirection'],
  defaults: { targetDirection: AT_OR_ABOVE },
  undeletable: false,
  validate(slo, { previous }) {
    if (typeof slo.displayName !== 'string' || slo.displayName.trim() === '') throw invalid('agent_slo.display_name is required');
    // Required on create (the spec's request table); an update may clear it, and health is then omitted.
    if (previous === undefined && slo.targetValue === undefined) throw invalid('agent_slo.target_value is required');
    if (slo.targetValue !== undefined && (typeof slo.targetValue !== 'number' || !Number.isFinite(slo.targetValue))) {
      throw invalid('agent_slo.target_value must be a finite number');
    }
    if (!(SLO_DIRECTIONS as readonly unknown[]).includes(slo.targetDirection)) {
      throw invalid(`agent_slo.target_direction must be one of ${SLO_DIRECTIONS.join(', ')}`);
    }
  },
  // A cleared direction is the default again; health follows the latest score, target and direction.
  derive: (slo) => ({
    targetDirection: (slo.targetDirection as string | undefined) ?? AT_OR_ABOVE,
    healthy: healthOf(slo.targetValue, slo.targetDirection ?? AT_OR_ABOVE, recordsOf(slo).at(-1)?.score),
  }),
  actions: { [SLO_EVALUATION_RECORDED]: recordEvaluation },
};
