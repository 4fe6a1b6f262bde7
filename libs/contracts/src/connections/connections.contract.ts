/**
 * Connections read API (spec part 1, "Connection"; REST only): GetConnection, ListConnections,
 * ListConnectionTypes. Connections come from the operator configuration; the API only reads them.
 */
import { IsNotEmpty, IsString } from 'class-validator';
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
