import type { Actor } from '../shared/decider';
import type { ResourceCommand, ResourceEvent, UpdateScope } from '../shared/resource';
import { resourceDecider } from '../shared/resource.decider';
import { givenFor } from '../shared/testing';
import { knownIssueSpec } from './known-issue.resource';

const given = givenFor(resourceDecider(knownIssueSpec));
const T0 = '2024-05-01T10:00:00Z';
const T1 = '2024-05-02T10:00:00Z';
const actorAt = (now: string): Actor => ({ org: 'acme', actor: 'users/al', subject: 'users/al', permissions: ['KNOWLEDGE_WRITE'], now });
const createIssue = (resource: Record<string, unknown>): ResourceCommand => ({ type: 'Create', actor: actorAt(T0), id: 'ki-1', resource });
const updateIssue = (resource: Record<string, unknown>, scope: UpdateScope = 'all-provided'): ResourceCommand => ({
  type: 'Update',
  actor: actorAt(T1),
  name: 'known-issues/ki-1',
  resource,
  scope,
});
const created: ResourceEvent = {
  type: 'KnownIssueCreated',
  data: { resource: { name: 'known-issues/ki-1', title: 'Slow checkout', status: 'KNOWN_ISSUE_STATUS_ACTIVE', createTime: T0, updateTime: T0 } },
};

describe('known issues', () => {
  it('starts active', () => {
    given().when(createIssue({ title: 'Slow checkout' })).then([created]);
    given().when(createIssue({ title: 'Slow checkout', status: 'KNOWN_ISSUE_STATUS_ACTIVE' })).then([created]);
  });

  it('cannot be created resolved', () => {
    given()
      .when(createIssue({ status: 'KNOWN_ISSUE_STATUS_RESOLVED' }))
      .thenFails('INVALID_ARGUMENT', /starts as KNOWN_ISSUE_STATUS_ACTIVE; resolve 'known-issues\/ki-1' with UpdateKnownIssue/);
  });

  it('is resolved (and may be reopened) by an update', () => {
    const resolved: ResourceEvent = { type: 'KnownIssueUpdated', data: { set: { status: 'KNOWN_ISSUE_STATUS_RESOLVED' }, unset: [], updateTime: T1 } };
    given([created]).when(updateIssue({ status: 'KNOWN_ISSUE_STATUS_RESOLVED' })).then([resolved]);
    given([created, resolved]).when(updateIssue({ status: 'KNOWN_ISSUE_STATUS_ACTIVE' })).then([
      { type: 'KnownIssueUpdated', data: { set: { status: 'KNOWN_ISSUE_STATUS_ACTIVE' }, unset: [], updateTime: T1 } },
    ]);
  });

  it('accepts only the two status values, and never clears the status', () => {
    for (const status of ['KNOWN_ISSUE_STATUS_UNSPECIFIED', 'resolved', 'OPEN']) {
      given().when(createIssue({ status })).thenFails('INVALID_ARGUMENT', /status of known issue 'known-issues\/ki-1' must be one of/);
      given([created]).when(updateIssue({ status })).thenFails('INVALID_ARGUMENT', new RegExp(`got '${status}'`));
    }
    given([created]).when(updateIssue({}, { paths: ['status'] })).thenFails('INVALID_ARGUMENT', /got ''/);
  });
});
