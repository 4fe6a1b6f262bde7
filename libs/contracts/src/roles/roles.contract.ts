// class-transformer's @Type reads design-time metadata: whoever loads a DTO needs the Reflect polyfill first.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsNotEmpty, IsObject, IsOptional, IsString, Matches, ValidateNested } from 'class-validator';
import type { FilterSchema } from '../shared/resource-api';
import { Int64, MutatingRequest } from '../shared/requests';
import type { ResourceShape } from '../shared/responses';

export const ROLES_SERVICE = 'svc.rbac.v1.RolesService';

/** Settable fields of a role; system, isDefault, name and timestamps are server-managed and ignored. */
export class RoleInput {
  @IsOptional() @IsString() displayName?: string;
  @IsOptional() @IsString() description?: string;
  @IsOptional() @IsArray() @ArrayMaxSize(100) @IsString({ each: true }) permissions?: string[];
}

/** A role as answered: its settable fields plus the server-set ones (name, times, these). */
export const roleShape: ResourceShape = { singular: 'role', plural: 'roles', input: RoleInput, outputOnly: ['system', 'isDefault'] };

export class CreateRoleRequest extends MutatingRequest {
  @IsOptional() @IsString() roleId?: string;
  @IsObject({ message: 'role is required and must be an object' }) @ValidateNested() @Type(() => RoleInput) role!: RoleInput;
}

export class UpdateRoleRequest extends MutatingRequest {
  @IsObject({ message: 'role is required and must be an object' })
  @ValidateNested()
  @Type(() => RoleInput)
  role!: RoleInput & { name?: unknown };
  @IsOptional() updateMask?: string | string[];
}

export class ListUsersWithPermissionRequest {
  @IsString() @IsNotEmpty() permission!: string;
  @Int64() pageSize?: number;
  @IsOptional() @IsString() pageToken?: string;
}

export class ListUsersWithPermissionResponse {
  @IsString({ each: true }) users!: string[];
  @IsString() nextPageToken!: string;
}

export class AssignRolesRequest extends MutatingRequest {
  @IsString() @Matches(/^users\/[^/]+$/, { message: 'user must be users/{user}' }) user!: string;
  @IsArray() @ArrayMaxSize(100) @IsString({ each: true }) roles!: string[];
}

export const roleFilters: FilterSchema = {
  name: { type: 'string', path: 'name' },
  display_name: { type: 'string', path: 'displayName' },
  description: { type: 'string', path: 'description', indexed: false },
  permissions: { type: 'string[]', path: 'permissions' },
  system: { type: 'boolean', path: 'system' },
  is_default: { type: 'boolean', path: 'isDefault' },
  create_time: { type: 'timestamp', path: 'createTime' },
  update_time: { type: 'timestamp', path: 'updateTime' },
};

export const roleOrderBy: Record<string, string> = {
  name: 'name',
  display_name: 'displayName',
  create_time: 'createTime',
  update_time: 'updateTime',
};

/** The user's role names after the assignment. */
export class AssignRolesResponse {
  @IsString({ each: true }) roles!: string[];
}
