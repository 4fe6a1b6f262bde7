// class-transformer's @Type reads design-time metadata: whoever loads a DTO needs the Reflect polyfill first.
import 'reflect-metadata';
import { Transform } from 'class-transformer';
import { buildMessage, IsBoolean, IsNotEmpty, IsOptional, IsString, ValidateBy, type ValidationOptions } from 'class-validator';

// At most 15 digits: every such number is exact as a JS number (2^53 has 16).
const DECIMAL = /^-?\d{1,15}$/;

/**
 * An optional 64-bit integer: a JSON number or a string of decimal digits (protobuf JSON's int64),
 * nothing else: `true`, `"0x10"`, `"1e3"`, `" 7"` and `2.5` are refused, and so is a number past
 * 2^53, which JSON.parse has already rounded to another.
 */
export function Int64(options?: ValidationOptions): PropertyDecorator {
  return (target, key) => {
    IsOptional()(target, key);
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' && DECIMAL.test(value) ? Number(value) : value), {
      toClassOnly: true,
    })(target, key);
    ValidateBy(
      {
        name: 'isInt64',
        validator: {
          validate: (value) => typeof value === 'number' && Number.isSafeInteger(value),
          defaultMessage: buildMessage(() => '$property must be an integer (a JSON number or a string of decimal digits)'),
        },
      },
      options,
    )(target, key);
  };
}

/** Request envelopes shared by every resource (AIP-131..135, AIP-155), camelCase after wire conversion. */
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
  @Int64() pageSize?: number;
  @IsOptional() @IsString() pageToken?: string;
  // REST query parameters arrive as strings (`?showDeleted=true`).
  @IsOptional() @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value)) @IsBoolean() showDeleted?: boolean;
}

/** List of a nested collection: `parent` names the resource whose children are listed. */
export class ParentListRequest extends ListRequest {
  @IsString() @IsNotEmpty() parent!: string;
}
