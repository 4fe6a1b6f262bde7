import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
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
