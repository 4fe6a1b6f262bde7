import type { Actor } from '../shared/decider';
import type { Resource, ResourceCommand, ResourceEvent, UpdateScope } from '../shared/resource';
import { resourceDecider } from '../shared/resource.decider';
import { givenFor } from '../shared/testing';
import { DEFAULT_ISSUE_NOTIFICATION_POLICY, issueNotificationPolicySpec } from './issue-notification-policy.resource';

const given = givenFor(resourceDecider(issueNotificationPolicySpec));
const NOW = '2024-05-01T10:00:00Z';
const LATER = '2024-05-02T10:00:00Z';
const NAME = 'issue-notification-policies/default';
const actor: Actor = { org: 'acme', actor: 'users/al', subject: 'users/al', permissions: ['KNOWLEDGE_WRITE'], now: LATER };
const operator: Actor = { org: 'acme', actor: 'operator-config', subject: 'operator-config', permissions: [], now: NOW };

const seeded: ResourceEvent = {
  type: 'IssueNotificationPolicyCreated',
  data: { resource: { name: NAME, state: 'ISSUE_NOTIFICATION_POLICY_STATE_ACTIVE', createTime: NOW, updateTime: NOW } },
};
const warehouse: Resource = { name: 'connections/warehouse', connectionType: 'CONNECTION_TYPE_SQLDB' };
const slack: Resource = { name: 'connections/slack', connectionType: 'CONNECTION_TYPE_CHAT' };
const refs = new Map<string, Resource | null>([
  ['connections/warehouse', warehouse],
  ['connections/slack', slack],
  ['connections/missing', null],
]);
const update = (resource: Record<string, unknown>, scope: UpdateScope = 'all-provided'): ResourceCommand => ({
  type: 'Update',
  actor,
  name: NAME,
  resource: { name: NAME, ...resource },
  scope,
  refs,
});
const seed = (): ResourceCommand => ({ type: 'Sync', actor: operator, id: 'default', resource: DEFAULT_ISSUE_NOTIFICATION_POLICY, mode: 'ensure' });

describe('issue notification policy', () => {
  it('is seeded ACTIVE once; seeding again never undoes an edit', () => {
    given().when(seed()).then([seeded]);
    const edited: ResourceEvent = { type: 'IssueNotificationPolicyUpdated', data: { set: { prompt: 'page on-call' }, unset: [], updateTime: LATER } };
    given([seeded, edited]).when(seed()).thenNothing();
  });

  it('updates description, connections and prompt; state is not settable', () => {
    given([seeded])
      .when(update({ description: 'Routing', connections: ['connections/slack', 'connections/warehouse'], prompt: 'Be brief', state: 'OTHER' }))
      .then([
        {
          type: 'IssueNotificationPolicyUpdated',
          data: {
            set: { description: 'Routing', connections: ['connections/slack', 'connections/warehouse'], prompt: 'Be brief' },
            unset: [],
            updateTime: LATER,
          },
        },
      ]);
  });

  it('with a mask, changes only the named fields and clears named ones left out', () => {
    const withPrompt: ResourceEvent = { type: 'IssueNotificationPolicyUpdated', data: { set: { prompt: 'old', description: 'd' }, unset: [], updateTime: NOW } };
    given([seeded, withPrompt])
      .when(update({ description: 'ignored', connections: ['connections/slack'] }, { paths: ['connections', 'prompt'] }))
      .then([{ type: 'IssueNotificationPolicyUpdated', data: { set: { connections: ['connections/slack'] }, unset: ['prompt'], updateTime: LATER } }]);
  });

  it('connections must exist, be well formed and appear once', () => {
    given([seeded]).when(update({ connections: ['connections/missing'] })).thenFails('INVALID_ARGUMENT', /'connections\/missing', which does not exist/);
    given([seeded]).when(update({ connections: ['warehouse'] })).thenFails('INVALID_ARGUMENT', /connections\[0\] must look like 'connections\/\{connection_id\}'/);
    given([seeded])
      .when(update({ connections: ['connections/slack', 'connections/slack'] }))
      .thenFails('INVALID_ARGUMENT', /connections\[1\]: 'connections\/slack' is listed twice/);
  });

  it('another name than the singleton is not found', () => {
    given()
      .when({ type: 'Update', actor, name: 'issue-notification-policies/other', resource: { prompt: 'x' }, scope: 'all-provided', refs })
      .thenFails('NOT_FOUND');
  });
});
