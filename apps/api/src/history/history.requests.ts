// class-transformer reads design-time metadata: whoever loads this module needs the Reflect polyfill first.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsInt, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { Int64 } from '@svc/contracts/shared/requests';

/** Longest resource name the history methods accept (nested names included). */
export const MAX_NAME_LENGTH = 1024;

export class ListResourceHistoryRequest {
  @IsString() @IsNotEmpty() @MaxLength(MAX_NAME_LENGTH) name!: string;
  /** `time` (oldest first, default) or `time desc`. */
  @IsOptional() @IsString() orderBy?: string;
  @Int64() pageSize?: number;
  @IsOptional() @IsString() pageToken?: string;
}

/** One event of a resource's history (libs/application/src/history/resource-history.ts, HistoryEntry). */
export class HistoryEvent {
  /** The event's id as the watch streams show it. */
  @IsString() position!: string;
  /** Revision of the event in its stream: the `version` an as-of read takes. */
  @IsInt() version!: number;
  @IsString() type!: string;
  @IsString() time!: string;
  @IsString() recordTime!: string;
  @IsString() actor!: string;
  @IsString() subject!: string;
  @IsOptional() @IsString() requestId?: string;
  @IsString() correlationId!: string;
  @IsString({ each: true }) changedFields!: string[];
  /** The new values, by path (`labels.env`). */
  @IsObject() set!: Record<string, unknown>;
  @IsString({ each: true }) unset!: string[];
}

export class ListResourceHistoryResponse {
  @ValidateNested({ each: true }) @Type(() => HistoryEvent) events!: HistoryEvent[];
  @IsString() nextPageToken!: string;
}

/** The resource as it was (any resource's answered form), the version and time of its last event then. */
export class GetResourceAsOfResponse {
  @IsObject() resource!: Record<string, unknown>;
  @IsInt() version!: number;
  @IsString() time!: string;
}

export class GetResourceAsOfRequest {
  @IsString() @IsNotEmpty() @MaxLength(MAX_NAME_LENGTH) name!: string;
  @IsOptional() @IsString() readTime?: string;
  @Int64() version?: number;
}

export class WatchEventsRequest {
  /** AIP-160 over type, resource, collection, actor and subject. */
  @IsOptional() @IsString() filter?: string;
}

export class WatchResourceRequest extends WatchEventsRequest {
  @IsString() @IsNotEmpty() @MaxLength(MAX_NAME_LENGTH) name!: string;
}
