import type { Resource } from '../shared/resource';
import { validateEvidenceByRules } from './evidence-validation';
import { issueIdOf, issuesFromConclusion } from './issue.resource';

const session: Resource = {
  name: 'agents/a/sessions/s',
  createdBy: 'users/alice',
  associatedResources: ['deployment-environments/prod', 'services/checkout', 'deployments/d1', 'objectives/o'],
};
const proposed = [{ title: 'Disk full', description: '/var' }, { title: '  ', description: 'nothing' }, { title: 'Slow', description: '' }];

describe('issues from a conclusion', () => {
  it('derives stable IDs from session, turn and index, and places the issues by the session', () => {
    const issues = issuesFromConclusion(session, 'turn-3', proposed);
    expect(issues.map((i) => i.id)).toEqual([issueIdOf(session.name, 'turn-3', 0), issueIdOf(session.name, 'turn-3', 2)]);
    expect(issuesFromConclusion(session, 'turn-3', proposed)).toEqual(issues);
    expect(issueIdOf(session.name, 'turn-4', 0)).not.toBe(issues[0].id);
    expect(issues[0].resource).toEqual({
      name: `issues/${issues[0].id}`,
      displayName: 'Disk full',
      description: '/var',
      source: 'deployment-environments/prod',
      deploymentEnvironments: ['deployment-environments/prod'],
      services: ['services/checkout'],
      objectives: ['objectives/o'],
      session: session.name,
      assignee: 'users/alice',
    });
  });

  it('creates none from an incognito or dry-run session', () => {
    expect(issuesFromConclusion({ ...session, incognito: true }, 't', proposed)).toEqual([]);
    expect(issuesFromConclusion({ ...session, dryRun: true }, 't', proposed)).toEqual([]);
  });
});

describe('the rule-based evidence validator', () => {
  it('passes issues whose title the evidence mentions and that say what is wrong', () => {
    const result = validateEvidenceByRules([{ title: 'Disk full on db-1', description: 'x' }], 'the disk of db-1 is FULL');
    expect(result).toMatchObject({ decision: 'ISSUE_EVIDENCE_VALIDATION_DECISION_PASS', passes: true, validatorVersion: 'rules-1' });
  });

  it('fails when one issue lacks evidence or a description', () => {
    const result = validateEvidenceByRules(
      [
        { title: 'Disk full', description: 'x' },
        { title: 'Certificate expired', description: 'x' },
        { title: 'Disk full' },
      ],
      'disk full',
    );
    expect(result.decision).toBe('ISSUE_EVIDENCE_VALIDATION_DECISION_FAIL');
    expect(result.passes).toBe(false);
    expect(result.findings.map((f) => f.supported)).toEqual([true, false, false]);
  });
});
