import { eventually, Stack } from './support/harness';

const A = 'svc.nxagent.v2.AgentService';
const I = 'svc.issues.v1.IssuesService';
const V = 'svc.issues.v2.IssueValidationService';
const ACTIVITY = 'type.googleapis.com/svc.nxagent.v1.Activity';
const user = (text: string) => ({ '@type': ACTIVITY, user: { text: { text } } });

interface Issue {
  name: string;
  displayName: string;
  description?: string;
  source: string;
  deploymentEnvironments: string[];
  services: string[];
  objectives: string[];
  session: string;
  workflowState: string;
  assignee?: string;
  createTime: string;
}
type Issues = { issues: Issue[]; nextPageToken: string };

describe('issues (svc.issues.v1.IssuesService, svc.issues.v2.IssueValidationService)', () => {
  let stack: Stack;
  const list = (body: Record<string, unknown> = {}) => stack.rpc<Issues>(`${I}/ListIssues`, body);
  /** Creates a session with these settings, asks it to conclude with `text`, and waits for the conclusion. */
  const conclude = async (id: string, settings: Record<string, unknown>, text: string) => {
    const created = await stack.rpc(`${A}/CreateSession`, { parent: 'agents/finder', session_id: id, ...settings });
    expect(created.status).toBe(200);
    const session = `agents/finder/sessions/${id}`;
    expect((await stack.rpc(`${A}/Write`, { session, messages: [user(text)] })).status).toBe(200);
    // Read, not DescribeSessions, which does not show incognito sessions: the turn that concludes ends waiting.
    await eventually(async () => {
      const res = await stack.rpc<{ status: string; messages: unknown[] }>(`${A}/Read`, { session });
      return res.body.status === 'STATUS_WAITING' && res.body.messages.length >= 2 ? true : undefined;
    }, 20_000);
    return session;
  };
  const issuesOf = (session: string, count: number) =>
    eventually(async () => {
      const res = await list({ filter: `session = "${session}"`, order_by: 'display_name' });
      return res.body.issues?.length === count ? res.body.issues : undefined;
    }, 20_000);

  beforeAll(async () => {
    stack = await Stack.start({ env: { SVC_ISSUE_VALIDATOR: 'rules' } });
    expect((await stack.rpc(`${A}/CreateAgent`, { agent_id: 'finder', agent: { prompt: 'You find issues.' } })).status).toBe(200);
  });
  afterAll(() => stack.destroy());

  it('a concluding session creates one issue per proposal, none from incognito or dry-run sessions', async () => {
    const incognito = await conclude('hidden', { incognito: true }, 'conclude\nissue: Hidden problem | secret');
    const dryRun = await conclude('backtest', { dry_run: true }, 'conclude\nissue: Backtest problem | replay');
    const placed = { associated_resources: ['deployment-environments/prod', 'services/checkout', 'objectives/latency'] };
    const session = await conclude('found', placed, 'Please conclude.\nissue: Disk full | /var is at 100%\nissue: Slow checkout\nissue:  | no title');
    const issues = await issuesOf(session, 2);
    expect(issues[0]).toMatchObject({
      displayName: 'Disk full',
      description: '/var is at 100%',
      source: 'deployment-environments/prod',
      deploymentEnvironments: ['deployment-environments/prod'],
      services: ['services/checkout'],
      objectives: ['objectives/latency'],
      session,
      workflowState: 'ISSUE_WORKFLOW_STATE_ACTIONABLE',
      assignee: 'users/alice',
    });
    expect(issues[0].name).toMatch(/^issues\/[0-9a-f]{32}$/);
    expect(issues[1]).toMatchObject({ displayName: 'Slow checkout', session });
    expect(issues[1]).not.toHaveProperty('description');
    // The reactor handles conclusions in log order: the later session's issues mean the earlier ones were seen.
    for (const quiet of [incognito, dryRun]) expect((await list({ filter: `session = "${quiet}"` })).body.issues).toEqual([]);
    const got = await stack.rpc<{ issue: Issue }>(`${I}/GetIssue`, { name: issues[0].name });
    expect(got.body.issue).toEqual(issues[0]);
  });

  it('ListIssues filters on deployment_environments, workflow_state, services, objectives and assignee', async () => {
    const other = await conclude('elsewhere', { associated_resources: ['deployment-environments/staging'] }, 'conclude\nissue: Staging flake');
    await issuesOf(other, 1);
    const names = async (filter: string) => {
      const res = await list({ filter, order_by: 'display_name' });
      expect([filter, res.status]).toEqual([filter, 200]);
      return res.body.issues.map((i) => i.displayName);
    };
    expect(await names("deployment_environments:'deployment-environments/prod'")).toEqual(['Disk full', 'Slow checkout']);
    expect(await names("workflow_state = 'ISSUE_WORKFLOW_STATE_ACTIONABLE' AND deployment_environments:'deployment-environments/staging'")).toEqual(['Staging flake']);
    expect(await names("services:'services/checkout'")).toEqual(['Disk full', 'Slow checkout']);
    expect(await names("workflow_state != 'ISSUE_WORKFLOW_STATE_CLOSED' AND services:'services/checkout'")).toEqual(['Disk full', 'Slow checkout']);
    expect(await names("objectives:'objectives/latency'")).toEqual(['Disk full', 'Slow checkout']);
    expect(await names("assignee = 'users/alice'")).toEqual(['Disk full', 'Slow checkout', 'Staging flake']);
    expect(await names("assignee = 'users/bob'")).toEqual([]);
    expect((await list({ filter: "workflow_state = 'OPEN'" })).status).toBe(400);
  });

  it('issues are read-only through the API', async () => {
    for (const method of ['CreateIssue', 'UpdateIssue', 'DeleteIssue']) expect((await stack.rpc(`${I}/${method}`, { issue: { display_name: 'x' } })).status).toBe(404);
    expect((await stack.rpc(`${I}/GetIssue`, { name: 'issues/missing' })).status).toBe(404);
  });

  const evidence = (body: Record<string, unknown>) => stack.request<Record<string, unknown>>('POST', '/v2/issues:validateEvidence', { body });

  it('ValidateIssueEvidence checks its input: 1 to 10 issues, evidence_context required and at most 15,000 characters', async () => {
    const issue = { title: 'Disk full', description: 'd' };
    const invalid = async (body: Record<string, unknown>, message: RegExp) => {
      const res = await evidence(body);
      expect([res.status, res.body]).toEqual([400, { error: expect.objectContaining({ status: 'INVALID_ARGUMENT', message: expect.stringMatching(message) }) }]);
    };
    await invalid({ evidence_context: 'x' }, /issues/);
    await invalid({ issues: [], evidence_context: 'x' }, /1 to 10/);
    await invalid({ issues: Array.from({ length: 11 }, () => issue), evidence_context: 'x' }, /1 to 10/);
    await invalid({ issues: [issue] }, /evidence_context is required/);
    await invalid({ issues: [issue], evidence_context: '' }, /evidence_context is required/);
    await invalid({ issues: [issue], evidence_context: 'x'.repeat(15_001) }, /15000 characters/);
    await invalid({ issues: [{ description: 'no title' }], evidence_context: 'x' }, /title/);
    expect((await evidence({ issues: Array.from({ length: 10 }, () => issue), evidence_context: 'x'.repeat(15_000) })).status).toBe(200);
  });

  it('the rule-based validator answers PASS or FAIL with feedback, findings and its version, and changes nothing', async () => {
    const before = (await list({ page_size: 1000 })).body.issues.length;
    const pass = await stack.rpc(`${V}/ValidateIssueEvidence`, {
      issues: [{ title: 'Disk full on db-1', description: '/var at 100%' }],
      evidence_context: 'df shows the disk of db-1 is full: /var 100%',
      source_session: 'agents/finder/sessions/found',
    });
    expect(pass.body).toMatchObject({ decision: 'ISSUE_EVIDENCE_VALIDATION_DECISION_PASS', passes: true, validatorVersion: 'rules-1', feedback: expect.any(String) });
    expect(pass.body.findings).toEqual([expect.objectContaining({ issueIndex: 0, supported: true })]);
    const fail = await evidence({
      issues: [
        { title: 'Disk full on db-1', description: 'x' },
        { title: 'Certificate expired', description: 'TLS fails' },
      ],
      evidence_context: 'df shows the disk of db-1 is full',
    });
    expect(fail.body).toMatchObject({ decision: 'ISSUE_EVIDENCE_VALIDATION_DECISION_FAIL', passes: false, validatorVersion: 'rules-1' });
    expect(fail.body.findings).toEqual([
      expect.objectContaining({ issueIndex: 0, supported: true }),
      expect.objectContaining({ issueIndex: 1, supported: false, reason: expect.stringContaining('certificate') }),
    ]);
    expect(fail.body.feedback).toMatch(/1 of 2/);
    expect((await list({ page_size: 1000 })).body.issues.length).toBe(before);
  });
});

describe('ValidateIssueEvidence without a configured validator', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start();
  });
  afterAll(() => stack.destroy());

  it('answers SKIPPED with passes true (fail-open)', async () => {
    const res = await stack.request('POST', '/v2/issues:validateEvidence', { body: { issues: [{ title: 'Anything' }], evidence_context: 'nothing related' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ decision: 'ISSUE_EVIDENCE_VALIDATION_DECISION_SKIPPED', passes: true, findings: [] });
  });
});
