import { DomainError } from '../shared/domain-error';
import type { ResourceEvent } from '../shared/resource';
import { actorKindOf, revisionOperationOf, serviceRevisionOf } from './service-revision';
import { validateService, validateServiceDimension } from './service.resource';

const fails = (rule: () => void, message: RegExp) => {
  expect(rule).toThrow(DomainError);
  expect(rule).toThrow(message);
};

describe('service catalog rules', () => {
  it('a service needs a display name of 1 to 200 characters', () => {
    expect(() => validateService({ displayName: 'x'.repeat(200), state: 'SERVICE_STATE_ACTIVE' })).not.toThrow();
    fails(() => validateService({ state: 'SERVICE_STATE_ACTIVE' }), /display_name is required/);
    fails(() => validateService({ displayName: '' }), /display_name/);
    fails(() => validateService({ displayName: 'x'.repeat(201) }), /1 to 200/);
  });

  it('enums take only their persisted values', () => {
    fails(() => validateService({ displayName: 'S', state: 'SERVICE_STATE_UNSPECIFIED' }), /state must be one of/);
    fails(() => validateService({ displayName: 'S', state: 'SERVICE_DIMENSION_STATE_ACTIVE' }), /state must be one of/);
    fails(() => validateService({ displayName: 'S', recommendationConfidence: 'HIGH' }), /recommendation_confidence/);
    fails(() => validateServiceDimension({ displayName: 'D', state: 'SERVICE_STATE_ACTIVE' }), /SERVICE_DIMENSION_STATE_ACTIVE/);
    expect(() => validateServiceDimension({ displayName: 'D', state: 'SERVICE_DIMENSION_STATE_RECOMMENDED' })).not.toThrow();
  });

  it('typed fields: strings, evidence as a list of strings, expert session as a session name', () => {
    fails(() => validateService({ displayName: 'S', context: 42 }), /context must be a string/);
    fails(() => validateService({ displayName: 'S', recommendationEvidence: 'one' }), /recommendation_evidence/);
    fails(() => validateService({ displayName: 'S', expertSession: 'sessions/1' }), /expert_session/);
    expect(() => validateService({ displayName: 'S', expertSession: 'agents/a/sessions/1', recommendationEvidence: ['e'] })).not.toThrow();
    fails(() => validateServiceDimension({ displayName: 'D', sourceColumn: ['region'] }), /source_column must be a string/);
  });
});

describe('service revisions', () => {
  const service = { name: 'services/s', displayName: 'S', createTime: 'T0', updateTime: 'T0' };
  const who = { subject: 'operator-config', time: 'T1' };

  it('one revision per lifecycle event, numbered from 1, with the service after the event', () => {
    const created: ResourceEvent = { type: 'ServiceCreated', data: { resource: service } };
    expect(serviceRevisionOf('services/s', 0, created, who)).toEqual({
      name: 'services/s/revisions/1',
      revisionNumber: 1,
      snapshot: service,
      operation: 'REVISION_OPERATION_CREATE',
      actor: { subject: 'operator-config', kind: 'ACTOR_KIND_SYSTEM' },
      createTime: 'T1',
    });
    const snapshot = { ...service, deleteTime: 'T1' };
    const deleted = { type: 'ServiceDeleted', data: { deleteTime: 'T1', snapshot } } as ResourceEvent;
    expect(serviceRevisionOf('services/s', 4, deleted, who)).toMatchObject({ name: 'services/s/revisions/5', snapshot, operation: 'REVISION_OPERATION_DELETE' });
  });

  it('an event without a snapshot (before revisions began) writes no revision', () => {
    expect(serviceRevisionOf('services/s', 1, { type: 'ServiceDeleted', data: { deleteTime: 'T1' } }, who)).toBeNull();
  });

  it('operations by event suffix, actor kinds by subject', () => {
    expect(['ServiceCreated', 'ServiceUpdated', 'ServiceDeleted', 'ServiceUndeleted', 'ServiceAccepted'].map(revisionOperationOf)).toEqual([
      'REVISION_OPERATION_CREATE',
      'REVISION_OPERATION_UPDATE',
      'REVISION_OPERATION_DELETE',
      'REVISION_OPERATION_UNDELETE',
      'REVISION_OPERATION_UPDATE',
    ]);
    expect(['users/a', 'service-accounts/d', 'agents/x', 'operator-config'].map(actorKindOf)).toEqual([
      'ACTOR_KIND_USER',
      'ACTOR_KIND_SERVICE_ACCOUNT',
      'ACTOR_KIND_AGENT',
      'ACTOR_KIND_SYSTEM',
    ]);
  });
});
