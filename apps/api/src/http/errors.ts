import { DomainError, type ErrorCode } from '@svc/domain/shared/domain-error';

/** The standard google.rpc code to HTTP status mapping (ARCHITECTURE.md, "Wire"). */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  OUT_OF_RANGE: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  ABORTED: 409,
  RESOURCE_EXHAUSTED: 429,
  INTERNAL: 500,
  UNIMPLEMENTED: 501,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
};

export interface ErrorBody {
  error: {
    code: number;
    status: ErrorCode;
    message: string;
    details: Array<{ '@type': string; reason: string; domain: string; metadata: Record<string, string> }>;
  };
}

export function errorBody(error: DomainError, typeHost: string): ErrorBody {
  return {
    error: {
      code: HTTP_STATUS[error.code],
      status: error.code,
      message: error.message,
      details: error.reason
        ? [{ '@type': `${typeHost}/google.rpc.ErrorInfo`, reason: error.reason, domain: 'svc', metadata: error.metadata }]
        : [],
    },
  };
}

export const unauthenticated = (message = 'missing or invalid credentials') => new DomainError('UNAUTHENTICATED', message);
export const unimplemented = (message: string) => new DomainError('UNIMPLEMENTED', message);
