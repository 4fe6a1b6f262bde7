// class-transformer's @Type reads design-time metadata: whoever loads a DTO needs the Reflect polyfill first.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsNotEmpty, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { MutatingRequest } from '../shared/requests';
import { RESOURCE_FILTERS, type ResourceApi } from '../shared/resource-api';

const SERVICE = 'svc.investigations.v1.InvestigationService';

export const INVESTIGATION_STATUSES = ['INVESTIGATION_STATUS_EXECUTING', 'INVESTIGATION_STATUS_WAITING'] as const;
export type InvestigationStatus = (typeof INVESTIGATION_STATUSES)[number];

/** Client-settable fields of an investigation (spec part 2, "Investigation"); status only through UpdateInvestigation. */
export class InvestigationInput {
  @IsOptional() @IsString() displayName?: string;
  @IsOptional() @IsString() description?: string;
  @IsOptional() @IsIn(INVESTIGATION_STATUSES, { message: `status must be one of ${INVESTIGATION_STATUSES.join(', ')}` }) status?: string;
}

export const MAX_SEED_ACTIVITIES = 100;
export const MAX_ARTIFACT_REFERENCES = 100;

/**
 * CreateInvestigation: only display_name and description of `investigation` are read; the seed is
 * `initial_activities` (user-text activities); `artifacts` reference uploaded content by sha256.
 * Items are checked by the domain rule (libs/domain/src/investigations/seed.ts), which names them.
 */
export class CreateInvestigationRequest extends MutatingRequest {
  @IsObject({ message: 'investigation is required and must be an object' }) investigation!: Record<string, unknown>;
  @IsOptional() @IsArray() @ArrayMaxSize(MAX_SEED_ACTIVITIES) initialActivities?: unknown[];
  @IsOptional() @IsArray() @ArrayMaxSize(MAX_ARTIFACT_REFERENCES) artifacts?: unknown[];
}

export const investigationsApi: ResourceApi = {
  service: SERVICE,
  singular: 'investigation',
  plural: 'investigations',
  idField: 'investigationId',
  input: InvestigationInput,
  // Create is the area's own (seed, artifacts, the agent session); no delete in the spec.
  methods: { get: 'GetInvestigation', list: 'ListInvestigations', update: 'UpdateInvestigation' },
  filters: {
    ...RESOURCE_FILTERS,
    status: { type: 'enum', path: 'status', values: INVESTIGATION_STATUSES },
    display_name: { type: 'string', path: 'displayName' },
    description: { type: 'string', path: 'description', indexed: false },
    created_by: { type: 'string', path: 'createdBy' },
    session: { type: 'string', path: 'session' },
  },
  orderBy: { create_time: 'createTime', update_time: 'updateTime', display_name: 'displayName' },
  defaultOrder: 'create_time desc',
  permission: 'INVESTIGATIONS_WRITE',
  outputOnly: ['createdBy', 'session'],
};

export const INVESTIGATION_METHODS = { create: 'CreateInvestigation' } as const;
export const INVESTIGATIONS_SERVICE = SERVICE;

/** GetArtifact (svc.nxagent.v2.AgentService): one artifact of a session's namespace, by name. */
export class GetArtifactRequest {
  @IsString() @IsNotEmpty() session!: string;
  @IsString() @IsNotEmpty() name!: string;
}

/** UploadArtifact (`PUT /v1/artifacts/{sha256}`): the content held, and until when unless referenced. */
export class UploadArtifactResponse {
  @IsString() sha256!: string;
  /** int64 as protobuf JSON writes it: a decimal string. */
  @IsString() sizeBytes!: string;
  /** When the upload expires unless an investigation references it; absent once one does. */
  @IsOptional() @IsString() expireTime?: string;
}

/** An artifact of a session's namespace as GetArtifact answers it (ArtifactRecord on the wire). */
export class Artifact {
  @IsString() name!: string;
  @IsString() sha256!: string;
  @IsString() contentType!: string;
  @IsOptional() @IsString() contentEncoding?: string;
  /** int64 as protobuf JSON writes it: a decimal string. */
  @IsString() sizeBytes!: string;
  /** Where the bytes are streamed from (`GET`, the caller's credentials). */
  @IsString() downloadUri!: string;
  /** The bytes, base64, when they are at most 1 MiB. */
  @IsOptional() @IsString() content?: string;
}

export class GetArtifactResponse {
  // A read-model document: its shape is the schema's, its TypeScript type an open record.
  @ValidateNested() @Type(() => Artifact) artifact!: Record<string, unknown>;
}
