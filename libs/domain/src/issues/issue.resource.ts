/**
 * Issues (spec part 3, "Issue"): read-only through the API. A session that concludes with proposed
 * issues creates one issue each, unless it is incognito or a dry run (a backtest must leave no
 * trace). The issue ID derives from the session, the turn and the index of the proposal, so a
 * redelivered conclusion finds the issues it already made.
 */
import { createHash } from 'node:crypto';
import type { ProposedIssue } from '@svc/contracts/sessions/session.events';
import { invalid } from '../shared/domain-error';
import type { JsonObject } from '../shared/json-path';
import { commonId, type Resource, type ResourceAction, type ResourceSpec } from '../shared/resource';

export const ACTIONABLE = 'ISSUE_WORKFLOW_STATE_ACTIONABLE';
export const VERIFYING_FIX = 'ISSUE_WORKFLOW_STATE_VERIFYING_FIX';
export const FIX_LINKED = 'IssueFixLinked';

/**
 * A pull request fixing the issue was linked (monitoring plans rules 5 and 6, applied by the
 * monitoring plans' issues reactor): its URL joins `pullRequests` (an extension field), and when the
 * plan already has monitored deployments an actionable issue moves to VERIFYING_FIX. A closed issue
 * stays closed. Nothing new: no event (the reactor's redeliveries are free).
 */
export function linkFix(issue: Resource, input: JsonObject): ReturnType<ResourceAction> {
  const pullRequest = String(input.pullRequest ?? '');
  if (pullRequest === '') throw invalid('pullRequest is required');
  const linked = Array.isArray(issue.pullRequests) ? (issue.pullRequests as string[]) : [];
  const set: JsonObject = {};
  if (!linked.includes(pullRequest)) set.pullRequests = [...linked, pullRequest];
  if (input.promote === true && (issue.workflowState ?? ACTIONABLE) === ACTIONABLE) set.workflowState = VERIFYING_FIX;
  return Object.keys(set).length === 0 ? null : { event: FIX_LINKED, set, data: { pullRequest } };
}

export const issueSpec: ResourceSpec = {
  kind: 'Issue',
  collection: 'issues',
  idRequired: false,
  ...commonId('issue_id'),
  settable: ['displayName', 'description', 'source', 'deploymentEnvironments', 'session', 'workflowState', 'services', 'objectives', 'assignee'],
  defaults: { workflowState: ACTIONABLE },
  undeletable: false,
  actions: { [FIX_LINKED]: linkFix },
};

/** `issues/{id}` of the `index`th issue a session proposed in a turn: stable across redeliveries. */
export function issueIdOf(session: string, turn: string, index: number): string {
  return createHash('sha256').update(`${session}\n${turn}\n${index}`).digest('hex').slice(0, 32);
}

const namesUnder = (resources: unknown, collection: string): string[] =>
  Array.isArray(resources) ? resources.filter((r): r is string => typeof r === 'string' && r.startsWith(`${collection}/`)) : [];

/**
 * The issues a concluded session creates: none from an incognito or dry-run session. The session's
 * associated resources place them (deployment environments, services, objectives); the source is
 * the first environment, else the session; the assignee is the user who created the session.
 */
export function issuesFromConclusion(session: Resource, turn: string, proposed: readonly ProposedIssue[]): Array<{ id: string; resource: Resource }> {
  if (session.incognito === true || session.dryRun === true) return [];
  const associated = session.associatedResources;
  const environments = namesUnder(associated, 'deployment-environments');
  const createdBy = typeof session.createdBy === 'string' && session.createdBy.startsWith('users/') ? session.createdBy : undefined;
  return proposed
    .map((issue, index) => ({ issue, index }))
    .filter(({ issue }) => typeof issue.title === 'string' && issue.title.trim() !== '')
    .map(({ issue, index }) => {
      const id = issueIdOf(session.name, turn, index);
      const resource: Resource = {
        name: `issues/${id}`,
        displayName: issue.title.trim(),
        ...(issue.description ? { description: issue.description } : {}),
        source: environments[0] ?? session.name,
        deploymentEnvironments: environments,
        services: namesUnder(associated, 'services'),
        objectives: namesUnder(associated, 'objectives'),
        session: session.name,
        ...(createdBy ? { assignee: createdBy } : {}),
      };
      return { id, resource };
    });
}
