/** A port's failure (VendorError, or a DomainError of a connection's details) as the ToolError the model reads. */
import { DomainError } from '@svc/domain/shared/domain-error';
import { VendorError } from '../vendor';
import { ToolError, type ToolErrorCode } from './tool-adapter.port';

const TOOL_CODES: ReadonlySet<string> = new Set<ToolErrorCode>(['INVALID_ARGUMENT', 'NOT_FOUND', 'PERMISSION_DENIED', 'DEADLINE_EXCEEDED', 'UNAVAILABLE', 'FAILED_PRECONDITION']);

export function toolErrorOf(error: unknown): unknown {
  if (!(error instanceof VendorError) && !(error instanceof DomainError)) return error;
  // ALREADY_EXISTS and the like: the call cannot go ahead as asked.
  return new ToolError(TOOL_CODES.has(error.code) ? (error.code as ToolErrorCode) : 'FAILED_PRECONDITION', error.message);
}

/** An optional string argument, or INVALID_ARGUMENT naming it. */
export function optionalArg(args: Record<string, unknown>, name: string): string | undefined {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new ToolError('INVALID_ARGUMENT', `"${name}" must be a string`);
  return value;
}

export function requiredArg(args: Record<string, unknown>, name: string): string {
  const value = optionalArg(args, name);
  if (value === undefined || value.trim() === '') throw new ToolError('INVALID_ARGUMENT', `"${name}" is required`);
  return value;
}
