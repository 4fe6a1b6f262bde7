/**
 * Skills bundles (spec part 1, "Skills bundle"): a code-host directory of agent skills. The kit serves
 * CRUD; ListSkillsBundleSkills and PreviewSkillsBundleSkills read the repository live
 * (apps/api/src/skillsbundles).
 */
// class-transformer's @Type reads design-time metadata: whoever loads a DTO needs the Reflect polyfill first.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsNotEmpty, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { ListRequest } from '../shared/requests';
import { RESOURCE_FILTERS, type ResourceApi } from '../shared/resource-api';

export const SKILLS_BUNDLES_SERVICE = 'svc.skills_bundles.v1.SkillsBundlesService';

/** Settable fields of a skills bundle. */
export class SkillsBundleInput {
  @IsOptional() @IsString() @MaxLength(256) displayName?: string;
  @IsOptional() @IsString() @MaxLength(256) connection?: string;
  @IsOptional() @IsString() @MaxLength(201) repository?: string;
  @IsOptional() @IsString() @MaxLength(1024) directory?: string;
  @IsOptional() @IsString() @MaxLength(255) branch?: string;
  @IsOptional() @IsBoolean() enabled?: boolean;
}

export const skillsBundlesApi: ResourceApi = {
  service: SKILLS_BUNDLES_SERVICE,
  singular: 'skillsBundle',
  plural: 'skillsBundles',
  idField: 'skillsBundleId',
  input: SkillsBundleInput,
  methods: { create: 'CreateSkillsBundle', get: 'GetSkillsBundle', update: 'UpdateSkillsBundle', delete: 'DeleteSkillsBundle', list: 'ListSkillsBundles' },
  filters: {
    ...RESOURCE_FILTERS,
    display_name: { type: 'string', path: 'displayName' },
    connection: { type: 'string', path: 'connection' },
    repository: { type: 'string', path: 'repository' },
    enabled: { type: 'boolean', path: 'enabled' },
  },
  orderBy: { name: 'name', display_name: 'displayName', create_time: 'createTime', update_time: 'updateTime' },
  defaultOrder: 'create_time desc',
  permission: 'INTEGRATIONS_WRITE',
  // Spec: update_mask is required; output-only paths are stripped and an empty remainder is refused.
  maskRequired: true,
};

/** ListSkillsBundleSkills: filter, order_by, page_size and page_token are accepted and ignored (spec). */
export class ListSkillsBundleSkillsRequest extends ListRequest {
  @IsString() @IsNotEmpty() @MaxLength(256) parent!: string;
}

export class PreviewSkillsBundleSkillsRequest {
  @IsString() @IsNotEmpty() @MaxLength(256) connection!: string;
  @IsString() @IsNotEmpty() @MaxLength(201) repository!: string;
  @IsOptional() @IsString() @MaxLength(1024) directory?: string;
  @IsOptional() @IsString() @MaxLength(255) branch?: string;
}

/** Spec part 1, "DiscoveredSkill". */
export class DiscoveredSkill {
  @IsString() name!: string;
  @IsString() description!: string;
  @IsString() body!: string;
  @IsString() sourceRef!: string;
}

export class ListSkillsBundleSkillsResponse {
  @IsArray() @ValidateNested({ each: true }) @Type(() => DiscoveredSkill) skills!: DiscoveredSkill[];
  /** Always empty: the skills come in one page. */
  @IsString() nextPageToken!: string;
}

export class PreviewSkillsBundleSkillsResponse {
  @IsArray() @ValidateNested({ each: true }) @Type(() => DiscoveredSkill) skills!: DiscoveredSkill[];
}
