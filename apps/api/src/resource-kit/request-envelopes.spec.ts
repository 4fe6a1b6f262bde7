import type { ResourceApi } from '@svc/contracts/shared/resource-api';
import { DomainError } from '@svc/domain/shared/domain-error';
import type { ResourceSpec } from '@svc/domain/shared/resource';
import { updateScope } from './request-envelopes';

const spec = { settable: ['title', 'state'] } as unknown as ResourceSpec;
const api = { outputOnly: ['createdBy'] } as unknown as ResourceApi;
const required = { ...api, maskRequired: true } as ResourceApi;

function failure(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    return error as DomainError;
  }
  throw new Error('expected a failure');
}

describe('resource kit: updateScope', () => {
  it('drops an area output-only field from the mask like the server times', () => {
    expect(updateScope(spec, api, 'title,created_by,update_time')).toEqual({ paths: ['title'] });
    expect(failure(() => updateScope(spec, { ...api, outputOnly: undefined }, 'created_by'))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/created_by/),
    });
  });

  it('without maskRequired, a missing mask means the provided fields and * means all', () => {
    expect(updateScope(spec, api, undefined)).toBe('all-provided');
    expect(updateScope(spec, api, '*')).toBe('all');
  });

  it('with maskRequired, refuses a missing or blank mask and full replacement', () => {
    expect(failure(() => updateScope(spec, required, undefined))).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/required/) });
    expect(failure(() => updateScope(spec, required, ' , '))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(failure(() => updateScope(spec, required, '*'))).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/full replacement/) });
    expect(updateScope(spec, required, 'state')).toEqual({ paths: ['state'] });
  });

  it('with maskRequired, refuses a mask that names only output-only fields (nothing left once they are stripped)', () => {
    expect(failure(() => updateScope(spec, required, 'name,create_time'))).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/no settable field/) });
    expect(updateScope(spec, api, 'name,create_time')).toEqual({ paths: [] });
  });
});
