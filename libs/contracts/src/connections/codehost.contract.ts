/**
 * The code host helpers of svc.connections.v1.IntegrationHelpersService (spec part 1, "Integration
 * helpers"): ListRepositories and ListRepositoryBranches read live from a code-host connection.
 */
// class-transformer's @Type reads design-time metadata: whoever loads a DTO needs the Reflect polyfill first.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsNotEmpty, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { Int64 } from '../shared/requests';

/** Spec: page_size defaults to and is capped at 100; 0 or less uses the default. */
export const CODEHOST_PAGE = { default: 100, max: 100 } as const;

export class ListRepositoriesRequest {
  /** `connections/{id}` of a code-host connection. */
  @IsString() @IsNotEmpty() @MaxLength(256) connectionName!: string;
  @Int64() pageSize?: number;
  @IsOptional() @IsString() @MaxLength(512) pageToken?: string;
}

export class ListRepositoryBranchesRequest extends ListRepositoriesRequest {
  /** `owner/repo` */
  @IsString() @IsNotEmpty() @MaxLength(201) repository!: string;
}

/** Spec part 1, "Code-host repository". */
export class CodehostRepository {
  @IsString() fullName!: string;
  @IsString() defaultBranch!: string;
  @IsBoolean() private!: boolean;
}

export class ListRepositoriesResponse {
  @IsArray() @ValidateNested({ each: true }) @Type(() => CodehostRepository) repositories!: CodehostRepository[];
  @IsString() nextPageToken!: string;
}

export class ListRepositoryBranchesResponse {
  @IsArray() @IsString({ each: true }) branches!: string[];
  /** Returned on every page (spec). */
  @IsString() defaultBranch!: string;
  @IsString() nextPageToken!: string;
}
