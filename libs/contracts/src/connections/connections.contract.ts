/**
 * Connections read API (spec part 1, "Connection"; REST only): GetConnection, ListConnections,
 * ListConnectionTypes. Connections come from the operator configuration; the API only reads them.
 */
// class-transformer's @Type reads design-time metadata: whoever loads a DTO needs the Reflect polyfill first.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsArray, IsNotEmpty, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import type { FilterSchema } from '../shared/resource-api';

/** `GET /v1/connections/{connection_id}`. */
export class GetConnectionRequest {
  @IsString() @IsNotEmpty() connectionId!: string;
}

/** The fields a ListConnections item carries (details are populated on Get only). */
export const CONNECTION_LIST_FIELDS = ['name', 'displayName', 'connectionType'] as const;

/** Configured types are open-ended (`CONNECTION_TYPE_*`), so connection_type filters as a string. */
export const CONNECTION_FILTERS: FilterSchema = {
  name: { type: 'string', path: 'name' },
  display_name: { type: 'string', path: 'displayName' },
  connection_type: { type: 'string', path: 'connectionType' },
};

export const CONNECTION_ORDER_BY: Record<string, string> = {
  name: 'name',
  display_name: 'displayName',
  connection_type: 'connectionType',
};

/** Connection type records: `type` identifies one, so it is also the `name` tiebreaker of the order. */
export const CONNECTION_TYPE_FILTERS: FilterSchema = {
  type: { type: 'string', path: 'type' },
  display_name: { type: 'string', path: 'displayName' },
  description: { type: 'string', path: 'description' },
  available_tools: { type: 'string[]', path: 'availableTools' },
};

export const CONNECTION_TYPE_ORDER_BY: Record<string, string> = {
  name: 'type',
  type: 'type',
  display_name: 'displayName',
};

/** A connection as GetConnection answers it; a ListConnections item carries CONNECTION_LIST_FIELDS only. */
export class Connection {
  @IsString() name!: string;
  @IsOptional() @IsString() displayName?: string;
  @IsOptional() @IsString() description?: string;
  @IsOptional() @IsString() connectionType?: string;
  /** Secret fields in clear for INTEGRATIONS_WRITE holders, left out for other members. */
  @IsOptional() @IsObject() connectionDetails?: Record<string, unknown>;
  @IsOptional() @IsArray() toolConfigurations?: unknown[];
}

export class GetConnectionResponse {
  // A read-model document: its shape is the schema's, its TypeScript type an open record.
  @ValidateNested() @Type(() => Connection) connection!: Record<string, unknown>;
}

export class ListConnectionsResponse {
  @ValidateNested({ each: true }) @Type(() => Connection) connections!: Connection[];
  @IsString() nextPageToken!: string;
}

/** A connection type of the catalog (libs/domain/src/connections/connection-types.ts). */
export class ConnectionTypeRecord {
  @IsString() type!: string;
  @IsString() displayName!: string;
  @IsString() description!: string;
  @IsString({ each: true }) availableTools!: string[];
}

export class ListConnectionTypesResponse {
  @ValidateNested({ each: true }) @Type(() => ConnectionTypeRecord) types!: ConnectionTypeRecord[];
  @IsString() nextPageToken!: string;
}

export class ChatDispatchError {
  @IsString() status!: string;
  @IsString() message!: string;
}

/** What one chat trigger did with a chat event: the session it started, or why it did not. */
export class ChatDispatch {
  @IsString() trigger!: string;
  @IsOptional() @IsString() session?: string;
  @IsOptional() @ValidateNested() @Type(() => ChatDispatchError) error?: ChatDispatchError;
}

/** HandleChatEvent: the challenge echoed (url_verification), or what each chat trigger did. */
export class HandleChatEventResponse {
  @IsOptional() @IsString() challenge?: string;
  @IsOptional() @ValidateNested({ each: true }) @Type(() => ChatDispatch) dispatched?: ChatDispatch[];
}
