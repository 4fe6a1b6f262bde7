/**
 * Indicators v1 (spec part 3, "Indicator"): the wire of svc.goals.v1.IndicatorsService and
 * IndicatorRelationsService. Indicators, their relations and their activities are one aggregate (the
 * indicator's stream); see docs/decisions.md, "Indicators".
 */
// class-transformer's @Type reads design-time metadata: whoever loads a DTO needs the Reflect polyfill first.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsBoolean, IsIn, IsNotEmpty, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { ListRequest, MutatingRequest } from '../shared/requests';
import { RESOURCE_FILTERS, type ChangelogApi, type ResourceApi } from '../shared/resource-api';
import { IsResource } from '../shared/responses';
import { INDICATOR_KINDS, INDICATOR_LIMITS } from './enums';

export { INDICATOR_KINDS, INDICATOR_LIMITS, type IndicatorKind } from './enums';

export const INDICATORS_SERVICE = 'svc.goals.v1.IndicatorsService';
export const INDICATOR_RELATIONS_SERVICE = 'svc.goals.v1.IndicatorRelationsService';
/** `query` of an indicator as clients send it; `status` is the server's and is ignored. */
export class IndicatorQueryInput {
  @IsOptional() @IsArray() @IsString({ each: true }) connections?: string[];
  @IsOptional() @IsString() engineSql?: string;
  @IsOptional() @IsString() description?: string;
}

export class IndicatorInput {
  @IsOptional() @IsString() displayName?: string;
  @IsOptional() @IsString() description?: string;
  @IsOptional() @IsIn(INDICATOR_KINDS, { message: `kind must be one of ${INDICATOR_KINDS.join(', ')}` }) kind?: string;
  @IsOptional() @IsString() unit?: string;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => IndicatorQueryInput) query?: IndicatorQueryInput;
}

export const indicatorsApi: ResourceApi = {
  service: INDICATORS_SERVICE,
  singular: 'indicator',
  plural: 'indicators',
  idField: 'indicatorId',
  input: IndicatorInput,
  // Create, Update, Delete and Undelete are the area's own (apps/api/src/indicators): they write relations and activities too.
  methods: { get: 'GetIndicator', list: 'ListIndicators' },
  filters: {
    ...RESOURCE_FILTERS,
    display_name: { type: 'string', path: 'displayName' },
    kind: { type: 'enum', path: 'kind', values: INDICATOR_KINDS },
    unit: { type: 'string', path: 'unit' },
    description: { type: 'string', path: 'description', indexed: false },
    'query.connections': { type: 'string[]', path: 'query.connections' },
    delete_time: { type: 'timestamp', path: 'deleteTime' },
  },
  orderBy: { create_time: 'createTime', update_time: 'updateTime', display_name: 'displayName' },
  defaultOrder: 'create_time desc',
  permission: 'INDICATORS_WRITE',
  maskRequired: true,
  outputOnly: ['etag'],
  etag: true,
};

export class IndicatorRelationInput {
  @IsString() @IsNotEmpty() indicator!: string;
  @IsString() @IsNotEmpty() resource!: string;
}

/** Relations are not a kit resource (their events live in the indicator's stream): the wire only. */
export const indicatorRelationsApi = {
  service: INDICATOR_RELATIONS_SERVICE,
  singular: 'indicatorRelation',
  plural: 'indicatorRelations',
  input: IndicatorRelationInput,
  filters: {
    ...RESOURCE_FILTERS,
    indicator: { type: 'string', path: 'indicator' },
    resource: { type: 'string', path: 'resource' },
  },
  orderBy: { create_time: 'createTime' },
  defaultOrder: 'create_time desc',
  permission: 'INDICATORS_WRITE',
} as const satisfies Pick<ResourceApi, 'service' | 'singular' | 'plural' | 'input' | 'filters' | 'orderBy' | 'defaultOrder' | 'permission'>;

/** ListIndicatorActivities: the changelog projected from the indicator's own events. */
export const indicatorActivitiesApi: ChangelogApi = {
  service: INDICATORS_SERVICE,
  methods: { list: 'ListIndicatorActivities' },
  singular: 'activity',
  plural: 'activities',
  store: 'indicator-activities',
  segment: 'activities',
  parentPath: 'indicator',
  filters: {
    description: { type: 'string', path: 'description', indexed: false },
    create_time: { type: 'timestamp', path: 'createTime' },
  },
  orderBy: { create_time: 'createTime' },
  defaultOrder: 'create_time desc',
};

export class CreateIndicatorRequest extends MutatingRequest {
  @IsOptional() @IsString() indicatorId?: string;
  @IsObject({ message: 'indicator is required and must be an object' }) @ValidateNested() @Type(() => IndicatorInput) indicator!: IndicatorInput;
  @IsString({ message: 'initial_resource is required' }) @IsNotEmpty({ message: 'initial_resource is required' }) initialResource!: string;
}

export class UpdateIndicatorRequest extends MutatingRequest {
  @IsObject({ message: 'indicator is required and must be an object' }) @ValidateNested() @Type(() => IndicatorInput) indicator!: IndicatorInput & { name?: string };
  updateMask?: string | string[];
  @IsOptional() @IsString() activityDescription?: string;
}

export class BatchGetIndicatorsRequest {
  @IsArray({ message: 'names is required' }) @ArrayNotEmpty({ message: 'names must not be empty' }) @ArrayMaxSize(INDICATOR_LIMITS.batchGet, { message: `names holds at most ${INDICATOR_LIMITS.batchGet} entries` }) @IsString({ each: true }) names!: string[];
}

export class PurgeIndicatorsRequest extends MutatingRequest {
  @IsOptional() @IsString() filter?: string;
  @IsOptional() @IsBoolean() force?: boolean;
}

export class CompileIndicatorQueryRequest {
  @IsString() @IsNotEmpty() name!: string;
  @IsString({ message: 'start_time is required (RFC 3339)' }) startTime!: string;
  @IsString({ message: 'end_time is required (RFC 3339)' }) endTime!: string;
  @IsString({ message: "resolution is required (a duration such as '60s')" }) resolution!: string;
}

export class ReportIndicatorQueryErrorRequest extends MutatingRequest {
  @IsString() @IsNotEmpty() name!: string;
  @IsString({ message: 'error is required' }) error!: string;
}

export class CreateIndicatorRelationRequest extends MutatingRequest {
  @IsObject({ message: 'indicator_relation is required and must be an object' }) @ValidateNested() @Type(() => IndicatorRelationInput) indicatorRelation!: IndicatorRelationInput;
}

export class ListIndicatorActivitiesRequest extends ListRequest {
  @IsString() @IsNotEmpty() parent!: string;
}

export class BatchGetIndicatorsResponse {
  @IsResource(() => indicatorsApi, { each: true }) indicators!: Record<string, unknown>[];
}

/** How many soft-deleted indicators matched (a dry run) or were purged (force), and some of their names. */
export class PurgeIndicatorsResponse {
  /** int64 as protobuf JSON writes it: a decimal string. */
  @IsString() purgeCount!: string;
  @IsString({ each: true }) purgeSample!: string[];
}

/** A `svc.query.v2.QueryRequest` as an Any: the compiled SQL and the resolved connections. */
export class CompiledQueryRequest {
  @IsString() '@type'!: string;
  @IsString() sql!: string;
  @IsObject({ each: true }) connections!: object[];
}

export class CompileIndicatorQueryResponse {
  @ValidateNested() @Type(() => CompiledQueryRequest) queryRequest!: CompiledQueryRequest;
  /** The indicator compiled, in the form its version (v1 or v2) answers. */
  @IsObject() indicator!: Record<string, unknown>;
}
