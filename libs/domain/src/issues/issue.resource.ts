/**
 * Issues (spec part 3, "Issue"): read-only through the API. A session that concludes with proposed
 * issues creates one issue each, unless it is incognito or a dry run (a backtest must leave no
 * trace). The issue ID derives from the session, the turn and the index of the proposal, so a
 * redelivered conclusion finds the issues it already made.
 */
import { createHash } from 'node:crypto';
import type { ProposedIssue } from '@svc/contracts/sessions/session.events';
import { commonId, type Resource, type ResourceSpec } from '../shared/resource';

export const ACTIONABLE = 'ISSUE_WORKFLOW_STATE_ACTIONABLE';

export const issueSpec: ResourceSpec = {
  kind: 'Issue',
  collection: 'issues',
  idRequired: false,
  ...commonId('issue_id'),
  settable: ['displayName', 'description', 'source', 'deploymentEnvironments', 'session', 'workflowState', 'services', 'objectives', 'assignee'],
  defaults: { workflowState: ACTIONABLE },
  undeletable: false,
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
