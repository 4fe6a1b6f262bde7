import { DomainError } from '@svc/domain/shared/domain-error';
import { capQuotes, errorBody } from './errors';

describe('error messages', () => {
  it('cut each quoted input to 64 characters and a whole message to 1,000', () => {
    const long = 'x'.repeat(500);
    expect(capQuotes(`name must look like 'notes/{note_id}', got '${long}'`)).toBe(`name must look like 'notes/{note_id}', got '${'x'.repeat(64)}…'`);
    expect(capQuotes(`filter: "${long}" is bad`)).toBe(`filter: "${'x'.repeat(64)}…" is bad`);
    expect(capQuotes(`a ${'y '.repeat(1000)}`)).toHaveLength(1001);
    expect(errorBody(new DomainError('INVALID_ARGUMENT', `got '${long}'`), 'h').error.message).toBe(`got '${'x'.repeat(64)}…'`);
  });
});

describe('error details', () => {
  it('keep the ErrorInfo and end with a google.rpc.RequestInfo naming the request', () => {
    const body = errorBody(new DomainError('FAILED_PRECONDITION', 'read-only', 'FEATURE_READ_ONLY'), 'h', 'req-1');
    expect(body.error.details).toEqual([
      { '@type': 'h/google.rpc.ErrorInfo', reason: 'FEATURE_READ_ONLY', domain: 'svc', metadata: {} },
      { '@type': 'h/google.rpc.RequestInfo', requestId: 'req-1' },
    ]);
    expect(errorBody(new DomainError('NOT_FOUND', 'gone'), 'h').error.details).toEqual([]);
  });
});
