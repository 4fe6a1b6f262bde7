/**
 * Monitoring plans (spec part 2, "Monitoring plans", rules 1 to 6) on the real api and projector, with
 * a local-git code host over repositories this test makes with real git; pull requests and comments
 * are the local-git host's records (local-pull-requests.ts).
 */
import * as fs from 'node:fs';
import { FakeGitHub } from './support/fake-github';
import { FakeSlack } from './support/fake-slack';
import { GitFixture, type GitRepo } from './support/git-fixture';
import { BOB, eventually, GINA, Stack, TEST_CONFIG_WITH_TELEMETRY } from './support/harness';
import { GAUGE_SQL } from './support/indicators';

const P = 'svc.monitoring_plans.v1.MonitoringPlanService';
const A = 'svc.nxagent.v2.AgentService';
const D = 'svc.deployments.v1.DeploymentsService';
const I = 'svc.issues.v1.IssuesService';
const ACTIVITY = 'type.googleapis.com/svc.nxagent.v1.Activity';
const UPDATED = '/v1/monitoring-plans:recordPullRequestUpdated';
const FIX_LINK = '/v1/monitoring-plans:recordPullRequestFixLink';
const CM = 'svc.monitoring_plans.v1.ChangeMonitorNotificationsService';
const BOT_TOKEN = 'xoxb-plans-e2e-bot';

interface Plan {
  name: string;
  origin: Record<string, unknown>;
  activation?: { mergeSha: string; environments: string[] };
  planContent?: string;
  planSummary: string;
  deployments?: Array<{ environment: string; deployment?: string; deployTime: string; intendedEffectConfirmed: boolean }>;
  relatedResources: string[];
}
interface Recorded {
  monitoringPlan: Plan;
  linkedIssues: string[];
  promotedIssues: string[];
  ignoredReferences?: string[];
}
interface Issue {
  name: string;
  workflowState: string;
  pullRequests?: string[];
}

describe('monitoring plans (svc.monitoring_plans.v1.MonitoringPlanService)', () => {
  let stack: Stack;
  const fixture = new GitFixture();
  /** Repositories a GitHub stand-in serves (test/support/fake-github.ts), through the GitHub adapter. */
  const hosted = new GitFixture();
  const github = new FakeGitHub(hosted.root, 'ghp_monitoring_e2e');
  /** The chat workspace rule 1's DM goes through (test/support/fake-slack.ts). */
  const slack = new FakeSlack(BOT_TOKEN, [], [{ id: 'U0ALICE', name: 'alice', email: 'alice@acme.test' }]);
  let app: GitRepo;
  let libRepo: GitRepo;
  let c1: string;
  let merge1: string;
  let issueA: string;
  let issueB: string;
  const get = (name: string) => stack.rpc<{ monitoringPlan: Plan }>(`${P}/GetMonitoringPlan`, { name });
  const issue = async (name: string) => (await stack.rpc<{ issue: Issue }>(`${I}/GetIssue`, { name })).body.issue;

  /** Two issues, made the way issues are made: a session of the built-in runtime concludes with them. */
  async function makeIssues(): Promise<[string, string]> {
    expect((await stack.rpc(`${A}/CreateAgent`, { agent_id: 'finder', agent: { prompt: 'You find issues.' } })).status).toBe(200);
    expect((await stack.rpc(`${A}/CreateSession`, { parent: 'agents/finder', session_id: 'found' })).status).toBe(200);
    const text = 'Please conclude.\nissue: Checkout retries storm | too many retries\nissue: Slow search';
    expect((await stack.rpc(`${A}/Write`, { session: 'agents/finder/sessions/found', messages: [{ '@type': ACTIVITY, user: { text: { text } } }] })).status).toBe(200);
    const issues = await eventually(async () => {
      const res = await stack.rpc<{ issues: Array<{ name: string; displayName: string }> }>(`${I}/ListIssues`, { order_by: 'display_name' });
      return res.body.issues?.length === 2 ? res.body.issues : undefined;
    }, 30_000);
    return [issues[0].name, issues[1].name];
  }

  async function deploy(id: string, environment: string, sha: string): Promise<void> {
    const labels = { repository: 'acme/app', environment, sha };
    expect((await stack.rpc(`${D}/CreateDeployment`, { deployment_id: id, deployment: { labels } })).status).toBe(200);
    expect((await stack.rpc(`${D}/UpdateDeploymentStatus`, { name: `deployments/${id}`, status: 'DEPLOYMENT_STATUS_SUCCESS' })).status).toBe(200);
  }

  beforeAll(async () => {
    app = fixture.repo('acme/app');
    c1 = app.commit('first', { 'README.md': '# app\n' });
    libRepo = fixture.repo('acme/lib');
    libRepo.commit('lib');
    const web = hosted.repo('octo/web');
    web.commit('first');
    web.branch('feature');
    await web.openPull({ title: 'Hosted change', head: 'feature', author: { login: 'octocat', id: '1' } });
    const apiUrl = await github.start();
    const slackUrl = await slack.start();
    const cloud = `      - id: github-cloud\n        type: CONNECTION_TYPE_CODEHOST\n        details: {codehost: {provider: github, api_url: "${apiUrl}", token: "ghp_monitoring_e2e"}}\n`;
    const chat = `      - id: slackbot\n        type: CONNECTION_TYPE_CHAT\n        details: {chat: {team_id: T020, bot_token: "${BOT_TOKEN}", api_url: "${slackUrl}"}}\n`;
    const config = TEST_CONFIG_WITH_TELEMETRY.replace('root: ./repos}}\n', `root: "${fixture.root}"}}\n${cloud}${chat}`);
    stack = await Stack.start({ config });
    [issueA, issueB] = await makeIssues();
    app.branch('fix-retries');
    app.checkout('fix-retries');
    app.commit('Cap checkout retries at 3', { 'retry.ts': 'export const MAX = 3;\n' });
    app.checkout('main');
    await app.openPull({
      title: 'Cap checkout retries',
      body: `Fixes: ${issueA}\n\nSee also ${issueB} (a bare mention).\nCloses issues/not-ours`,
      head: 'fix-retries',
      author: { login: 'ada', id: '583231' },
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.destroy();
    await github.stop();
    await slack.stop();
    fixture.remove();
    hosted.remove();
  });

  it('RecordPullRequestUpdated creates the plan from the pull request and links the issues it closes, never a bare mention (rule 6)', async () => {
    expect((await stack.request('POST', UPDATED, { body: { pr_url: 'local-git://acme/app/pull/1' }, as: BOB })).status).toBe(403);
    const res = await stack.request<Recorded>('POST', UPDATED, { body: { pr_url: 'local-git://acme/app/pull/1', installation_id: '42' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ linkedIssues: [issueA], promotedIssues: [], ignoredReferences: ['issues/not-ours'] });
    const plan = res.body.monitoringPlan;
    expect(plan.name).toMatch(/^monitoring-plans\/acme-app-pr-1-[0-9a-f]{8}$/);
    expect(plan.origin).toMatchObject({
      repository: 'acme/app',
      prNumber: 1,
      prUrl: 'local-git://acme/app/pull/1',
      headSha: expect.stringMatching(/^[0-9a-f]{40}$/),
      prTitle: 'Cap checkout retries',
      prAuthorCodehostLogin: 'ada',
      prAuthorCodehostUserId: '583231',
    });
    expect(plan.relatedResources).toEqual([issueA]);
    expect(plan.activation).toBeUndefined();
    expect(plan.planContent).toContain('Cap checkout retries');
    // The issue records the pull request; with no deployment yet it stays actionable.
    const linked = await eventually(async () => ((await issue(issueA)).pullRequests?.length ? issue(issueA) : undefined), 20_000);
    expect(linked).toMatchObject({ pullRequests: ['local-git://acme/app/pull/1'], workflowState: 'ISSUE_WORKFLOW_STATE_ACTIONABLE' });
    expect((await issue(issueB)).pullRequests).toBeUndefined();
    // A title and body in the request win over the host's (a webhook carries the newest).
    const edited = await stack.request<Recorded>('POST', UPDATED, { body: { pr_url: 'local-git://acme/app/pull/1', title: 'Cap checkout retries at 3', body: `resolves ${issueA}` } });
    expect(edited.body.monitoringPlan.origin.prTitle).toBe('Cap checkout retries at 3');
  });

  it('GetMonitoringPlan answers the whole plan; ListMonitoringPlans the list form, with the kit filter and paging; other organizations see nothing', async () => {
    const { name } = (await stack.request<Recorded>('POST', UPDATED, { body: { pr_url: 'local-git://acme/app/pull/1' } })).body.monitoringPlan;
    const got = await get(name);
    expect(got.status).toBe(200);
    expect(got.body.monitoringPlan).toMatchObject({ name, deployments: [], planContent: expect.any(String) });
    const list = await stack.rpc<{ monitoringPlans: Plan[]; nextPageToken: string }>(`${P}/ListMonitoringPlans`, { filter: 'origin.repository = "acme/app"', page_size: 10 });
    expect(list.status).toBe(200);
    expect(list.body.monitoringPlans.map((p) => p.name)).toContain(name);
    const item = list.body.monitoringPlans.find((p) => p.name === name)!;
    expect(item).not.toHaveProperty('planContent');
    expect(item).not.toHaveProperty('deployments');
    expect(item).not.toHaveProperty('activation');
    expect((await stack.rpc(`${P}/ListMonitoringPlans`, { filter: 'nope = 1' })).status).toBe(400);
    expect((await stack.rpc(`${P}/GetMonitoringPlan`, { name }, GINA)).status).toBe(404);
    expect((await stack.rpc<{ monitoringPlans: Plan[] }>(`${P}/ListMonitoringPlans`, {}, GINA)).body.monitoringPlans).toEqual([]);
  });

  it('PostInProgressComment posts a placeholder and records its id; PostPlanComment publishes into that same comment (rules 1 and 2)', async () => {
    const { name } = (await stack.request<Recorded>('POST', UPDATED, { body: { pr_url: 'local-git://acme/app/pull/1' } })).body.monitoringPlan;
    const id = name.split('/')[1];
    const placeholder = await stack.request<{ commentUrl: string }>('POST', `/v1/monitoring-plans/${id}:postInProgressComment`, { body: {} });
    expect(placeholder.status).toBe(200);
    expect(placeholder.body.commentUrl).toMatch(/^local-git:\/\/acme\/app\/pull\/1#issuecomment-[0-9]+$/);
    const commentId = placeholder.body.commentUrl.split('-').pop();
    expect((await get(name)).body.monitoringPlan.origin.prInProgressCommentId).toBe(commentId);
    expect((await app.comments('acme/app', 1)).map((c) => c.body)).toEqual([expect.stringContaining('being written')]);
    const published = await stack.request<{ commentUrl: string }>('POST', `/v1/monitoring-plans/${id}:postComment`, { body: { comment_body: '## Plan\nWatch checkout retries.' } });
    expect(published.body.commentUrl).toBe(placeholder.body.commentUrl);
    expect((await app.comments('acme/app', 1)).map((c) => c.body)).toEqual(['## Plan\nWatch checkout retries.']);
    expect((await stack.request('POST', `/v1/monitoring-plans/${id}:postComment`, { body: {} })).status).toBe(400);
    expect((await stack.request('POST', `/v1/monitoring-plans/${id}:postComment`, { body: { comment_body: 'x' }, as: BOB })).status).toBe(403);
    expect((await stack.request('POST', '/v1/monitoring-plans/nope:postInProgressComment', { body: {} })).status).toBe(404);
  });

  it('PostPlanComment also DMs the author once their code-host login is linked and DMs are enabled, and only then (rule 1)', async () => {
    const { name } = (await stack.request<Recorded>('POST', UPDATED, { body: { pr_url: 'local-git://acme/app/pull/1' } })).body.monitoringPlan;
    const post = (body: string) => stack.request<{ commentUrl: string }>('POST', `/v1/monitoring-plans/${name.split('/')[1]}:postComment`, { body: { comment_body: body } });
    // alice has verified a DM destination but not claimed the author's login (ada): the comment only.
    expect((await stack.rpc(`${CM}/VerifyMyChangeMonitorSlackDM`, { chat_connection: 'connections/slackbot', email: 'alice@acme.test' })).status).toBe(200);
    const verified = slack.posted.length;
    expect((await post('## Plan v2')).status).toBe(200);
    expect(slack.posted).toHaveLength(verified);
    expect((await stack.rpc(`${CM}/UpdateMyChangeMonitorNotificationPreference`, { chat_dm_enabled: true, codehost_login: 'ada' })).status).toBe(200);
    const res = await post('## Plan v3\nWatch the retry rate.');
    expect(res.status).toBe(200);
    expect((await app.comments('acme/app', 1)).map((c) => c.body)).toContain('## Plan v3\nWatch the retry rate.');
    expect(slack.posted.slice(verified)).toEqual([expect.objectContaining({ channel: expect.stringMatching(/^D/), text: expect.stringContaining('## Plan v3\nWatch the retry rate.') })]);
    // With DMs turned off again, nothing more is sent.
    expect((await stack.rpc(`${CM}/UpdateMyChangeMonitorNotificationPreference`, { chat_dm_enabled: false })).status).toBe(200);
    expect((await post('## Plan v4')).status).toBe(200);
    expect(slack.posted).toHaveLength(verified + 1);
  });

  it('PostInProgressComment answers an empty commentUrl and records nothing when the host cannot post', async () => {
    const pr = await libRepo.openPull({ title: 'Lib change', head: 'main' });
    const lib = libRepo.dir;
    const { name } = (await stack.request<Recorded>('POST', UPDATED, { body: { pr_url: `local-git://acme/lib/pull/${pr}` } })).body.monitoringPlan;
    fs.renameSync(lib, `${lib}-moved`);
    try {
      const res = await stack.request<{ commentUrl: string }>('POST', `/v1/monitoring-plans/${name.split('/')[1]}:postInProgressComment`, { body: {} });
      expect(res.status).toBe(200);
      expect(res.body.commentUrl).toBe('');
      expect((await get(name)).body.monitoringPlan.origin.prInProgressCommentId).toBeUndefined();
    } finally {
      fs.renameSync(`${lib}-moved`, lib);
    }
  });

  it('a successful deployment containing the merge commit activates the plan once per environment, and its issues move to VERIFYING_FIX (rules 3 and 5)', async () => {
    merge1 = app.merge('fix-retries', 'Merge pull request #1');
    await app.mergePull(1, merge1);
    const merged = await stack.request<Recorded>('POST', UPDATED, { body: { pr_url: 'local-git://acme/app/pull/1' } });
    expect(merged.body.monitoringPlan.activation).toEqual({ mergeSha: merge1, environments: [] });
    const name = merged.body.monitoringPlan.name;
    const later = app.commit('later work');
    await deploy('prod-1', 'production', later);
    const active = await eventually(async () => ((await get(name)).body.monitoringPlan.deployments?.length ? (await get(name)).body.monitoringPlan : undefined), 20_000);
    expect(active.activation).toEqual({ mergeSha: merge1, environments: ['deployment-environments/production'] });
    expect(active.deployments).toEqual([{ environment: 'deployment-environments/production', deployment: 'deployments/prod-1', deployTime: expect.any(String), intendedEffectConfirmed: false }]);
    await eventually(async () => ((await issue(issueA)).workflowState === 'ISSUE_WORKFLOW_STATE_VERIFYING_FIX' ? true : undefined), 20_000);
    // A second deployment of the same environment adds no entry.
    await deploy('prod-2', 'production', later);
    const explicit = await stack.rpc<{ activatedPlans: unknown[] }>(`${P}/ActivateFromDeployment`, { repository: 'acme/app', environment: 'production', deployed_sha: later });
    expect(explicit.body.activatedPlans).toEqual([]);
    expect((await get(name)).body.monitoringPlan.deployments).toHaveLength(1);
  });

  it('RecordPullRequestFixLink links an issue to a deployed plan and reports it promoted at once (rule 5)', async () => {
    expect((await stack.request('POST', FIX_LINK, { body: { pr_url: 'local-git://acme/app/pull/1', issue_name: 'issues/missing' } })).status).toBe(404);
    expect((await stack.request('POST', FIX_LINK, { body: { pr_url: 'local-git://acme/app/pull/1', issue_name: 'bad' } })).status).toBe(400);
    const res = await stack.request<Recorded>('POST', FIX_LINK, { body: { pr_url: 'local-git://acme/app/pull/1', issue_name: issueB } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ monitoringPlan: expect.objectContaining({ relatedResources: [issueA, issueB] }), linkedIssues: [issueB], promotedIssues: [issueB] });
    const promoted = await eventually(async () => {
      const found = await issue(issueB);
      return found.workflowState === 'ISSUE_WORKFLOW_STATE_VERIFYING_FIX' ? found : undefined;
    }, 20_000);
    expect(promoted.pullRequests).toEqual(['local-git://acme/app/pull/1']);
    const fixed = await stack.rpc<{ issues: Issue[] }>(`${I}/ListIssues`, { filter: 'pull_requests:"local-git://acme/app/pull/1"', order_by: 'display_name' });
    expect(fixed.body.issues.map((i) => i.name)).toEqual([issueA, issueB]);
  });

  it('ActivateFromDeployment reads the range base..deployed: a merge commit outside it activates nothing; idempotent (rule 3)', async () => {
    const name = (await stack.request<Recorded>('POST', UPDATED, { body: { pr_url: 'local-git://acme/app/pull/1' } })).body.monitoringPlan.name;
    const head = app.head();
    const outside = await stack.rpc<{ activatedPlans: unknown[] }>(`${P}/ActivateFromDeployment`, { repository: 'acme/app', environment: 'qa', deployed_sha: head, base_sha: merge1 });
    expect(outside.body.activatedPlans).toEqual([]);
    const inside = await stack.rpc<{ activatedPlans: Array<{ name: string; activation: { environments: string[] } }> }>(`${P}/ActivateFromDeployment`, {
      repository: 'acme/app',
      environment: 'staging',
      deployed_sha: head,
      base_sha: c1,
      deployment_name: 'deployments/stage-1',
    });
    expect(inside.status).toBe(200);
    expect(inside.body.activatedPlans).toEqual([{ name, activation: { mergeSha: merge1, environments: ['deployment-environments/production', 'deployment-environments/staging'] } }]);
    const again = await stack.rpc<{ activatedPlans: unknown[] }>(`${P}/ActivateFromDeployment`, { repository: 'acme/app', environment: 'staging', deployed_sha: head, base_sha: c1 });
    expect(again.body.activatedPlans).toEqual([]);
    expect((await stack.rpc(`${P}/ActivateFromDeployment`, { repository: 'acme/nope', environment: 'qa', deployed_sha: head })).status).toBe(400);
    expect((await stack.rpc(`${P}/ActivateFromDeployment`, { repository: 'acme/app', environment: 'qa' })).status).toBe(400);
    expect((await stack.rpc(`${P}/ActivateFromDeployment`, { repository: 'acme/app', environment: 'qa', deployed_sha: head }, BOB)).status).toBe(403);
  });

  it('ListMonitoringRuns lists one run per monitored deployment of a plan; GetMonitoringRun reads one (legacy, shapes ours)', async () => {
    const R = 'svc.monitoring_plans.v1.MonitoringRunService';
    const name = (await stack.request<Recorded>('POST', UPDATED, { body: { pr_url: 'local-git://acme/app/pull/1' } })).body.monitoringPlan.name;
    const runs = await eventually(async () => {
      const res = await stack.rpc<{ monitoringRuns: Array<Record<string, unknown>>; nextPageToken: string }>(`${R}/ListMonitoringRuns`, { parent: name, order_by: 'start_time asc' });
      return res.body.monitoringRuns?.length === 2 ? res.body : undefined;
    }, 20_000);
    expect(runs.monitoringRuns.map((r) => r.name)).toEqual([`${name}/runs/production`, `${name}/runs/staging`]);
    expect(runs.monitoringRuns[0]).toMatchObject({ plan: name, environment: 'deployment-environments/production', deployment: 'deployments/prod-1', state: 'MONITORING_RUN_STATE_RUNNING', intendedEffectConfirmed: false });
    const one = await stack.rpc<{ monitoringRun: Record<string, unknown> }>(`${R}/GetMonitoringRun`, { name: `${name}/runs/staging` });
    expect(one.status).toBe(200);
    expect(one.body.monitoringRun).toMatchObject({ environment: 'deployment-environments/staging', deployment: 'deployments/stage-1' });
    const filtered = await stack.rpc<{ monitoringRuns: unknown[] }>(`${R}/ListMonitoringRuns`, { parent: name, filter: 'environment = "deployment-environments/staging"' });
    expect(filtered.body.monitoringRuns).toHaveLength(1);
    expect((await stack.rpc(`${R}/GetMonitoringRun`, { name: `${name}/runs/qa` })).status).toBe(404);
    expect((await stack.rpc(`${R}/ListMonitoringRuns`, { parent: 'monitoring-plans/nope' })).status).toBe(404);
    expect((await stack.rpc(`${R}/ListMonitoringRuns`, { parent: name }, GINA)).status).toBe(404);
  });

  it('ActivatePlanFromDeployments activates a plan made after its pull request deployed, by ancestry, once (rule 4)', async () => {
    app.branch('fix-search');
    app.checkout('fix-search');
    app.commit('Index search by tenant');
    app.checkout('main');
    const pr = await app.openPull({ title: 'Faster search', head: 'fix-search' });
    const merge2 = app.merge('fix-search', 'Merge pull request #2');
    await app.mergePull(pr, merge2);
    // Deployed to canary before any plan exists; production still runs a commit without it.
    await deploy('canary-1', 'canary', merge2);
    const recorded = await stack.request<Recorded>('POST', UPDATED, { body: { pr_url: `local-git://acme/app/pull/${pr}` } });
    const name = recorded.body.monitoringPlan.name;
    const first = await stack.rpc<{ activatedPlans: Array<{ name: string }> }>(`${P}/ActivatePlanFromDeployments`, { name });
    expect(first.status).toBe(200);
    // The plan-activation reactor may have got there first: either way, one canary entry and no production one.
    const plan = await eventually(async () => ((await get(name)).body.monitoringPlan.deployments?.length ? (await get(name)).body.monitoringPlan : undefined), 20_000);
    expect(plan.activation?.environments).toEqual(['deployment-environments/canary']);
    expect(plan.deployments).toEqual([expect.objectContaining({ environment: 'deployment-environments/canary', deployment: 'deployments/canary-1' })]);
    expect((await stack.rpc<{ activatedPlans: unknown[] }>(`${P}/ActivatePlanFromDeployments`, { name })).body.activatedPlans).toEqual([]);
    expect((await stack.rpc(`${P}/ActivatePlanFromDeployments`, { name: 'monitoring-plans/nope' })).status).toBe(404);
  });

  it('reads a GitHub pull request through the GitHub adapter and comments on it there', async () => {
    const res = await stack.request<Recorded>('POST', UPDATED, { body: { pr_url: 'https://github.com/octo/web/pull/1' } });
    expect(res.status).toBe(200);
    expect(res.body.monitoringPlan.origin).toMatchObject({ repository: 'octo/web', prUrl: 'https://github.com/octo/web/pull/1', prTitle: 'Hosted change', prAuthorCodehostLogin: 'octocat' });
    const id = res.body.monitoringPlan.name.split('/')[1];
    const posted = await stack.request<{ commentUrl: string }>('POST', `/v1/monitoring-plans/${id}:postInProgressComment`, { body: {} });
    expect(posted.body.commentUrl).toMatch(/^https:\/\/github\.com\/octo\/web\/pull\/1#issuecomment-[0-9]+$/);
    expect(github.requests.filter((r) => r.method === 'POST').map((r) => [r.path, r.authorization])).toEqual([['/repos/octo/web/issues/1/comments', 'token ghp_monitoring_e2e']]);
  });

  it('indicators relate to monitoring plans: a plan that exists, never one that does not (spec part 3, indicator relations)', async () => {
    const { name } = (await stack.request<Recorded>('POST', UPDATED, { body: { pr_url: 'local-git://acme/app/pull/1' } })).body.monitoringPlan;
    const indicator = { display_name: 'Retry queue', kind: 'INDICATOR_KIND_GAUGE', query: { connections: ['connections/telemetry'], engine_sql: GAUGE_SQL } };
    const created = await stack.request('POST', '/v1/indicators', { body: { indicator_id: 'retry-queue', indicator, initial_resource: name } });
    expect(created.status).toBe(200);
    const R = 'svc.goals.v1.IndicatorRelationsService';
    const related = await stack.rpc<{ indicatorRelations: Array<{ resource: string }> }>(`${R}/ListIndicatorRelations`, { filter: `resource = '${name}'` });
    expect(related.body.indicatorRelations.map((r) => r.resource)).toEqual([name]);
    const ghost = await stack.rpc(`${R}/CreateIndicatorRelation`, { indicator_relation: { indicator: 'indicators/retry-queue', resource: 'monitoring-plans/ghost' } });
    // A missing relation target is the request's fault, as for agents and issues (indicator-commands.ts).
    expect(ghost).toMatchObject({ status: 400, body: { error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining("'monitoring-plans/ghost' does not exist") } } });
  });

  it('refuses a pull request no code host of the organization has, and a URL that is not a pull request', async () => {
    const unknown = await stack.request<{ error: { status: string; details: Array<{ reason?: string }> } }>('POST', UPDATED, { body: { pr_url: 'https://github.com/other/repo/pull/1' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.status).toBe('FAILED_PRECONDITION');
    expect((await stack.request('POST', UPDATED, { body: { pr_url: 'https://github.com/acme/app/issues/1' } })).status).toBe(400);
    expect((await stack.request('POST', UPDATED, { body: { pr_url: 'local-git://acme/app/pull/99' } })).status).toBe(404);
    expect((await stack.request('POST', UPDATED, { body: {} })).status).toBe(400);
    expect((await stack.request('POST', UPDATED, { body: { pr_url: 'local-git://acme/app/pull/1', body: 'x'.repeat(70_000) } })).status).toBe(400);
  });
});
