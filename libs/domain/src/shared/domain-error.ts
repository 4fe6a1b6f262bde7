/** Canonical google.rpc codes the domain may answer with; mapped to HTTP in one place (apps/api/src/http). */
export type ErrorCode =
  | 'INVALID_ARGUMENT'
  | 'FAILED_PRECONDITION'
  | 'OUT_OF_RANGE'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'ABORTED'
  | 'RESOURCE_EXHAUSTED'
  | 'INTERNAL'
  | 'UNIMPLEMENTED'
  | 'UNAVAILABLE'
  | 'DEADLINE_EXCEEDED';

/** A rule the request broke. `reason` becomes google.rpc.ErrorInfo.reason when set. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly reason?: string,
    readonly metadata: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const invalid = (message: string, reason?: string) => new DomainError('INVALID_ARGUMENT', message, reason);
export const notFound = (message: string) => new DomainError('NOT_FOUND', message);
export const failedPrecondition = (message: string, reason?: string) =>
  new DomainError('FAILED_PRECONDITION', message, reason);
export const permissionDenied = (message: string) => new DomainError('PERMISSION_DENIED', message);
export const alreadyExists = (message: string) => new DomainError('ALREADY_EXISTS', message);
