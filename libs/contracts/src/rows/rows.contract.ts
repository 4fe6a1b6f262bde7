/**
 * Row ingestion (an extension; docs/api-coverage.md, "Extensions"): rows posted to a table are
 * appended as one `RowsIngested` event per request, which the row trigger reactor matches against
 * the predicates of the enabled row triggers of that table.
 */
import { IsArray, IsInt, IsString } from 'class-validator';
import type { Permission } from '../roles/permissions';
import { MutatingRequest } from '../shared/requests';

export const ROWS_SERVICE = 'svc.rows.v1.RowsService';
export const INGEST_ROWS = 'IngestRows';
/** Who may ingest: the permission agents and integrations that write hold. */
export const ROWS_PERMISSION: Permission = 'AGENTS_WRITE';
/** Column names are user data: they keep their spelling (no snake/camel conversion). */
export const ROWS_PRESERVE_KEYS = ['rows'] as const;

export class IngestRowsRequest extends MutatingRequest {
  @IsString({ message: 'table is required and must be a string' }) table!: string;
  @IsArray({ message: 'rows is required and must be a list of objects' }) rows!: unknown[];
}

export const ROWS_INGESTED = 'RowsIngested';

export type RowValue = string | number | boolean | null;

export interface RowsIngestedEvent {
  type: typeof ROWS_INGESTED;
  data: { table: string; rows: Array<Record<string, RowValue>>; ingestTime: string };
}

/** One stream per ingestion request, so an ingestion never loads an earlier one. */
export function rowsStreamId(org: string, ingestionId: string): string {
  return `rows-${org}:ingestions/${ingestionId}`;
}

/** IngestRows: the ingestion's id, its table and how many rows it carried. */
export class IngestRowsResponse {
  @IsString() ingestion!: string;
  @IsString() table!: string;
  @IsInt() rowCount!: number;
}
