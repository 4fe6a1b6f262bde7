/**
 * Agent SLOs (spec part 3, "Agent SLO"): `agents/{agent}/slos/{slo}` with their evaluation records.
 * The only area whose answers are snake_case (wire convention 2); requests are as everywhere.
 */
// class-transformer's @Type reads design-time metadata: whoever loads a DTO needs the Reflect polyfill first.
import 'reflect-metadata';
import { Transform, Type } from 'class-transformer';
import { IsIn, IsNotEmpty, IsNumber, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { MutatingRequest } from '../shared/requests';
import { RESOURCE_FILTERS, type ChangelogApi, type ResourceApi } from '../shared/resource-api';
import { IsResource } from '../shared/responses';

export const AGENT_SLOS_SERVICE = 'svc.agentslos.v1.AgentSlosService';
export const SLO_DIRECTIONS = ['SLO_TARGET_DIRECTION_AT_OR_ABOVE', 'SLO_TARGET_DIRECTION_AT_OR_BELOW'] as const;
export type SloDirection = (typeof SLO_DIRECTIONS)[number];
export const RECORD_SLO_EVALUATION = 'RecordSloEvaluation';
/** Spec limit: ListAgentSlos and GetAgentSlo carry up to 24 most recent records per SLO. */
export const RECENT_RECORDS = 24;
/** Ours (docs/api-coverage.md limits): free text of a record. */
export const MAX_RECORD_NOTES = 10_000;

/**
 * protobuf JSON spells the non-finite doubles as the strings "NaN", "Infinity" and "-Infinity" (JSON
 * has no literal for them), and any double may arrive as a decimal string: both become numbers here,
 * so the domain refuses a non-finite score by its value, whatever spelling carried it.
 */
export function DoubleFromJson(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) => {
    if (typeof value !== 'string') return value;
    const trimmed = value.trim();
    if (trimmed === '') return value;
    const n = Number(trimmed);
    return Number.isNaN(n) && trimmed !== 'NaN' ? value : n;
  });
}

/** Settable fields (camelCase after wire conversion). */
export class AgentSloInput {
  @IsOptional() @IsString() @MaxLength(200) displayName?: string;
  @IsOptional() @IsString() @MaxLength(10_000) description?: string;
  @IsOptional() @IsString() @MaxLength(32) unit?: string;
  @IsOptional() @DoubleFromJson() @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'target_value must be a finite number' }) targetValue?: number;
  @IsOptional() @IsIn(SLO_DIRECTIONS, { message: `target_direction must be one of ${SLO_DIRECTIONS.join(', ')}` }) targetDirection?: string;
}

const REST_NAME = (r: Record<string, unknown>) => `agents/${String(r.agent)}/slos/${String(r.slo)}`;

export const agentSlosApi: ResourceApi = {
  service: AGENT_SLOS_SERVICE,
  singular: 'agentSlo',
  plural: 'agentSlos',
  idField: 'agentSloId',
  input: AgentSloInput,
  methods: { create: 'CreateAgentSlo', get: 'GetAgentSlo', update: 'UpdateAgentSlo', delete: 'DeleteAgentSlo', list: 'ListAgentSlos' },
  filters: { ...RESOURCE_FILTERS, display_name: { type: 'string', path: 'displayName' }, healthy: { type: 'boolean', path: 'healthy' } },
  orderBy: { create_time: 'createTime', update_time: 'updateTime', display_name: 'displayName' },
  defaultOrder: 'create_time asc',
  permission: 'AGENTS_WRITE',
  // Spec: an omitted update_mask updates all mutable fields (a full replacement of them).
  defaultMask: ['displayName', 'description', 'unit', 'targetValue', 'targetDirection'],
  outputOnly: ['healthy', 'recentRecords'],
  responseCase: 'snake',
  // The REST forms bind `{agent}` and `{slo}`; the RPC requests name the parent and the SLO.
  fromRest(method, request) {
    const { agent, slo, ...rest } = request;
    if (agent === undefined) return request;
    if (method === 'CreateAgentSlo' || method === 'ListAgentSlos') return { parent: `agents/${String(agent)}`, ...rest };
    if (slo === undefined) return request;
    if (method === 'ListAgentSloRecords') return { parent: REST_NAME(request), ...rest };
    if (method === RECORD_SLO_EVALUATION) return { slo_name: REST_NAME(request), ...rest };
    if (method === 'UpdateAgentSlo') {
      const body = (rest.agent_slo ?? rest.agentSlo ?? {}) as Record<string, unknown>;
      const { agent_slo: _a, agentSlo: _b, ...others } = rest;
      return { ...others, agent_slo: { ...body, name: REST_NAME(request) } };
    }
    return { name: REST_NAME(request), ...rest };
  },
};

/** ListAgentSloRecords: the records of one SLO, chronological by default. */
export const agentSloRecordsApi: ChangelogApi = {
  service: AGENT_SLOS_SERVICE,
  methods: { list: 'ListAgentSloRecords' },
  singular: 'agentSloRecord',
  plural: 'agentSloRecords',
  store: 'agentslorecords',
  segment: 'records',
  parentPath: 'agentSlo',
  filters: {
    score: { type: 'number', path: 'score' },
    session_name: { type: 'string', path: 'sessionName' },
    create_time: { type: 'timestamp', path: 'createTime' },
  },
  // Records of one SLO are numbered in the order they were recorded: `_seq` orders them exactly,
  // even when two share a create_time to the millisecond.
  orderBy: { create_time: '_seq', score: 'score' },
  defaultOrder: 'create_time asc',
  responseCase: 'snake',
  fromRest: (method, request) => agentSlosApi.fromRest!(method, request),
};

export class RecordSloEvaluationRequest extends MutatingRequest {
  @IsString() @IsNotEmpty({ message: 'slo_name is required' }) sloName!: string;
  /** Required and finite: a missing score, NaN or an infinity is judged by the domain (one message). */
  @DoubleFromJson() score!: unknown;
  @IsOptional() @IsString() @MaxLength(MAX_RECORD_NOTES) notes?: string;
  @IsOptional() @IsString() sessionName?: string;
}

/** One evaluation record of an SLO (`agents/{agent}/slos/{slo}/records/{n}`). */
export class AgentSloRecord {
  @IsString() name!: string;
  @IsNumber() score!: number;
  @IsOptional() @IsString() notes?: string;
  @IsOptional() @IsString() sessionName?: string;
  @IsString() createTime!: string;
}

/** RecordSloEvaluation: the SLO after the evaluation, and the record it appended. */
export class RecordSloEvaluationResponse {
  @IsResource(() => agentSlosApi) agentSlo!: Record<string, unknown>;
  @ValidateNested() @Type(() => AgentSloRecord) agentSloRecord!: AgentSloRecord;
}

export class ListAgentSloRecordsResponse {
  @ValidateNested({ each: true }) @Type(() => AgentSloRecord) agentSloRecords!: AgentSloRecord[];
  @IsString() nextPageToken!: string;
}
