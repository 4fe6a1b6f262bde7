import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsInt, IsNotEmpty, IsOptional, IsString } from 'class-validator';

/**
 * Request envelopes shared by every resource (AIP-131..135, AIP-155), camelCase after wire
 * conversion. 64-bit integers may arrive as JSON strings, hence the numeric coercion.
 */
export class MutatingRequest {
  /** AIP-155: a retry with the same request_id answers like the first and appends nothing. */
  @IsOptional() @IsString() requestId?: string;
}

export class NameRequest extends MutatingRequest {
  @IsString() @IsNotEmpty() name!: string;
}

/** Get of a singleton: the body may be empty (the name defaults to the singleton's). */
export class OptionalNameRequest extends MutatingRequest {
  @IsOptional() @IsString() name?: string;
}

export class ListRequest {
  @IsOptional() @IsString() filter?: string;
  @IsOptional() @IsString() orderBy?: string;
  @IsOptional() @Type(() => Number) @IsInt() pageSize?: number;
  @IsOptional() @IsString() pageToken?: string;
  // REST query parameters arrive as strings (`?showDeleted=true`).
  @IsOptional() @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value)) @IsBoolean() showDeleted?: boolean;
}

/** List of a nested collection: `parent` names the resource whose children are listed. */
export class ParentListRequest extends ListRequest {
  @IsString() @IsNotEmpty() parent!: string;
}
