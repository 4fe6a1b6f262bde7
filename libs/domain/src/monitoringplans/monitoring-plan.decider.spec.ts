import { FIX_LINKED, issueSpec } from '../issues/issue.resource';
import type { Actor } from '../shared/decider';
import { resourceDecider } from '../shared/resource.decider';
import type { Resource, ResourceEvent } from '../shared/resource';
import { givenFor } from '../shared/testing';
import { monitoringPlanDecider, planNameFor, type PlanCommand } from './monitoring-plan.decider';
import { parsePullRequestUrl, planIdFor, type PullRequestFacts } from './monitoring-plan.resource';

const given = givenFor(monitoringPlanDecider);
const actor = (now = '2026-01-01T00:00:00.000Z'): Actor => ({ org: 'acme', actor: 'users/alice', subject: 'users/alice', permissions: [], now });
const PR: PullRequestFacts = {
  repository: 'acme/app',
  number: 7,
  url: 'local-git://acme/app/pull/7',
  title: 'Cap retries',
  body: 'Fixes issues/a',
  headSha: 'h'.repeat(40),
  mergeSha: null,
  authorLogin: 'ada',
  authorId: '583231',
};
const NAME = planNameFor(PR);
const record = (pr: Partial<PullRequestFacts> = {}, issues: Array<[string, string]> = [], now?: string): PlanCommand => ({
  type: 'RecordPullRequest',
  actor: actor(now),
  pullRequest: { ...PR, ...pr },
  issues: issues.map(([issue, workflowState]) => ({ issue, workflowState })),
});
const activate = (environment: string, now?: string): PlanCommand => ({
  type: 'Activate',
  actor: actor(now),
  name: NAME,
  entries: [{ environment, deployment: 'deployments/d1', deployTime: '2026-01-02T00:00:00.000Z' }],
});

/** The events of a command on a history (for building histories). */
function run(history: ResourceEvent[], command: PlanCommand): ResourceEvent[] {
  const state = history.reduce(monitoringPlanDecider.evolve, monitoringPlanDecider.initialState());
  return [...history, ...monitoringPlanDecider.decide(command, state)];
}
const planOf = (events: ResourceEvent[]): Resource => events.reduce(monitoringPlanDecider.evolve, monitoringPlanDecider.initialState()).resource!;

describe('monitoring plan decider', () => {
  it('creates the plan from the first recording of its pull request, with its origin and generated content', () => {
    given([]).when(record({}, [['issues/a', 'ISSUE_WORKFLOW_STATE_ACTIONABLE']])).thenState((state, events) => {
      expect(events.map((e) => e.type)).toEqual(['MonitoringPlanCreated']);
      expect(state.resource).toMatchObject({
        name: NAME,
        origin: { repository: 'acme/app', prNumber: 7, prUrl: PR.url, headSha: PR.headSha, prTitle: 'Cap retries', prAuthorCodehostLogin: 'ada', prAuthorCodehostUserId: '583231' },
        relatedResources: ['issues/a'],
        deployments: [],
        planSummary: expect.stringContaining('acme/app#7'),
        planContent: expect.stringContaining('Fixes issues/a'),
      });
      expect(state.resource!.activation).toBeUndefined();
      // A new plan has no deployments: nothing to promote yet.
      expect(events[0].data).toMatchObject({ linkedIssues: ['issues/a'], promotedIssues: [] });
    });
  });

  it('records a changed title and the merge commit; the same facts again change nothing', () => {
    const history = run([], record());
    given(history).when(record({ title: 'Cap retries at 3', mergeSha: 'm'.repeat(40) }, [], '2026-01-03T00:00:00.000Z')).thenState((state) => {
      expect(state.resource).toMatchObject({ origin: { prTitle: 'Cap retries at 3' }, activation: { mergeSha: 'm'.repeat(40), environments: [] } });
    });
    given(history).when(record()).thenNothing();
  });

  it('activates a merged plan once per environment (idempotent)', () => {
    const merged = run(run([], record()), record({ mergeSha: 'm'.repeat(40) }));
    const active = run(merged, activate('production'));
    expect(planOf(active)).toMatchObject({
      activation: { environments: ['deployment-environments/production'] },
      deployments: [{ environment: 'deployment-environments/production', deployment: 'deployments/d1', intendedEffectConfirmed: false }],
    });
    given(active).when(activate('deployment-environments/production')).thenNothing();
    given(active).when(activate('staging')).thenState((state) => expect(state.resource!.deployments).toHaveLength(2));
  });

  it('refuses to activate a plan whose pull request has not landed', () => {
    given(run([], record())).when(activate('production')).thenFails('FAILED_PRECONDITION', /not landed/);
    given([]).when(activate('production')).thenFails('NOT_FOUND');
  });

  it('promotes a newly linked actionable issue when the plan already has deployments (rule 5)', () => {
    const deployed = run(run([], record({ mergeSha: 'm'.repeat(40) })), activate('production'));
    const events = given(deployed).when(record({}, [['issues/b', 'ISSUE_WORKFLOW_STATE_ACTIONABLE'], ['issues/c', 'ISSUE_WORKFLOW_STATE_CLOSED']])).then([
      expect.objectContaining({ type: 'MonitoringPlanPullRequestRecorded' }),
    ] as unknown as ResourceEvent[]);
    expect(events[0].data).toMatchObject({ linkedIssues: ['issues/b', 'issues/c'], promotedIssues: ['issues/b'], set: { relatedResources: ['issues/b', 'issues/c'] } });
    expect((events[0].data as unknown as { snapshot: Resource }).snapshot.relatedResources).toEqual(['issues/b', 'issues/c']);
  });

  it('records the in-progress comment id once', () => {
    const history = run([], record());
    const comment: PlanCommand = { type: 'RecordInProgressComment', actor: actor(), name: NAME, commentId: '42' };
    given(history).when(comment).thenState((state) => expect(state.resource!.origin).toMatchObject({ prInProgressCommentId: '42' }));
    given(run(history, comment)).when(comment).thenNothing();
  });

  it('names plans from their pull request, stable and collision-free', () => {
    expect(planIdFor('acme/app', 7)).toMatch(/^acme-app-pr-7-[0-9a-f]{8}$/);
    expect(planIdFor('a-b/c', 1)).not.toBe(planIdFor('a/b-c', 1));
    expect(parsePullRequestUrl('https://github.com/acme/app/pull/7')).toEqual({ repository: 'acme/app', number: 7 });
    expect(parsePullRequestUrl('local-git://acme/app/pull/7#x')).toEqual({ repository: 'acme/app', number: 7 });
    expect(() => parsePullRequestUrl('https://github.com/acme/app/issues/7')).toThrow(/pull request's URL/);
    expect(() => parsePullRequestUrl('acme/app#7')).toThrow(/pull request's URL/);
  });
});

describe('issue: a linked fix', () => {
  const issues = givenFor(resourceDecider(issueSpec));
  const created: ResourceEvent = { type: 'IssueCreated', data: { resource: { name: 'issues/a', workflowState: 'ISSUE_WORKFLOW_STATE_ACTIONABLE' } } };
  const link = (promote: boolean) => ({ type: 'Act' as const, action: FIX_LINKED, actor: actor(), name: 'issues/a', input: { pullRequest: PR.url, promote } });

  it('records the pull request, and moves to VERIFYING_FIX only when promoted', () => {
    issues([created]).when(link(false)).thenState((state) => expect(state.resource).toMatchObject({ pullRequests: [PR.url], workflowState: 'ISSUE_WORKFLOW_STATE_ACTIONABLE' }));
    issues([created]).when(link(true)).thenState((state) => expect(state.resource).toMatchObject({ pullRequests: [PR.url], workflowState: 'ISSUE_WORKFLOW_STATE_VERIFYING_FIX' }));
  });

  it('changes nothing twice, and leaves a closed issue closed', () => {
    const linked: ResourceEvent = { type: FIX_LINKED, data: { set: { pullRequests: [PR.url], workflowState: 'ISSUE_WORKFLOW_STATE_VERIFYING_FIX' }, unset: [], updateTime: 't' } };
    issues([created, linked]).when(link(true)).thenNothing();
    const closed: ResourceEvent = { type: 'IssueCreated', data: { resource: { name: 'issues/a', workflowState: 'ISSUE_WORKFLOW_STATE_CLOSED', pullRequests: [PR.url] } } };
    issues([closed]).when(link(true)).thenNothing();
  });
});
