import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BOB, CLI_MAIN, DEPLOYER, GINA, Stack } from './support/harness';

const S = 'svc.deploy_monitor.v1.DeploymentMonitorEvaluationService';

interface Evaluation {
  name: string;
  status: string;
  environment?: string;
  repository?: string;
  headSha?: string;
  overallStatus?: string;
  summary?: string;
  createTime: string;
  updateTime: string;
  [field: string]: unknown;
}
interface ListEvaluations {
  evaluations: Evaluation[];
  nextPageToken: string;
}
interface Cli {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run svc -- ...` as a separate process on the stack's data directory, optionally fed stdin. */
function svc(stack: Stack, args: string[], stdin?: string): Promise<Cli> {
  const env = { ...process.env, SVC_DATA_DIR: stack.dataDir, EVENTSTORE_URL: '', MONGODB_URL: '' };
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [CLI_MAIN, ...args], { env }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
    child.stdin?.end(stdin ?? '');
  });
}

const full = {
  session_name: 'agents/deploy-watcher/sessions/s-1',
  status: 'DEPLOYMENT_MONITOR_EVALUATION_STATUS_COMPLETED',
  codehost_run_id: 'run-981',
  environment: 'production',
  repository: 'acme/shop',
  head_sha: 'a1b2c3d4e5f6',
  base_sha: '0f9e8d7c6b5a',
  pr_number: '512',
  deployment_time: '2030-02-01T12:00:00Z',
  summary: 'Error rates unchanged after the deploy.',
  overall_status: 'successful',
};

describe('deployment monitor evaluations (svc.deploy_monitor.v1.DeploymentMonitorEvaluationService)', () => {
  let stack: Stack;
  const record = (id: string, evaluation: Record<string, unknown>, as = DEPLOYER, extra: Record<string, unknown> = {}) =>
    stack.rpc<{ evaluation: Evaluation }>(`${S}/RecordDeploymentMonitorEvaluation`, { deployment_monitor_evaluation_id: id, deployment_monitor_evaluation: evaluation, ...extra }, as);
  const list = (body: Record<string, unknown>, as?: typeof GINA) => stack.rpc<ListEvaluations>(`${S}/ListDeploymentMonitorEvaluations`, body, as);

  beforeAll(async () => {
    stack = await Stack.start();
  });
  afterAll(async () => {
    await stack.destroy();
  });

  it('the operator CLI records an evaluation from a file; Get returns every field', async () => {
    const file = path.join(stack.dataDir, 'eval.json');
    fs.writeFileSync(file, JSON.stringify({ deployment_monitor_evaluation_id: 'cli-1', deployment_monitor_evaluation: full }));
    const res = await svc(stack, ['evaluations', 'record', '--org', 'acme', '--file', file, '--json']);
    expect(res).toMatchObject({ code: 0 });
    const report = JSON.parse(res.stdout) as { evaluation: Evaluation; changed: boolean; projected: boolean };
    expect(report).toMatchObject({ changed: true, projected: true, evaluation: { name: 'deployment-monitor-evaluations/cli-1' } });
    const got = await stack.rpc<{ evaluation: Evaluation }>(`${S}/GetDeploymentMonitorEvaluation`, { name: 'deployment-monitor-evaluations/cli-1' });
    expect(got.status).toBe(200);
    expect(got.body.evaluation).toEqual({
      name: 'deployment-monitor-evaluations/cli-1',
      sessionName: 'agents/deploy-watcher/sessions/s-1',
      status: 'DEPLOYMENT_MONITOR_EVALUATION_STATUS_COMPLETED',
      codehostRunId: 'run-981',
      environment: 'production',
      repository: 'acme/shop',
      headSha: 'a1b2c3d4e5f6',
      baseSha: '0f9e8d7c6b5a',
      prNumber: 512,
      deploymentTime: '2030-02-01T12:00:00.000Z',
      summary: 'Error rates unchanged after the deploy.',
      overallStatus: 'successful',
      createTime: expect.stringMatching(/^20\d\d-/),
      updateTime: got.body.evaluation.createTime,
    });
    const trail = await svc(stack, ['audit', 'acme', 'deployment-monitor-evaluations/cli-1', '--json']);
    expect(JSON.parse(trail.stdout)).toMatchObject({ events: [{ type: 'DeploymentMonitorEvaluationCreated', actor: 'operator-cli' }] });
  });

  it('the CLI reads stdin, reports bad input and unknown organizations, and records again idempotently', async () => {
    const body = JSON.stringify({ deploymentMonitorEvaluationId: 'cli-2', deploymentMonitorEvaluation: { environment: 'staging' } });
    const created = await svc(stack, ['evaluations', 'record', '--org', 'acme'], body);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/deployment-monitor-evaluations\/cli-2 recorded \(DEPLOYMENT_MONITOR_EVALUATION_STATUS_RUNNING\)/);
    expect((await svc(stack, ['evaluations', 'record', '--org', 'acme'], body)).stdout).toMatch(/unchanged/);
    const [bad, nowhere, noOrg, notJson] = await Promise.all([
      svc(stack, ['evaluations', 'record', '--org', 'acme'], JSON.stringify({ deployment_monitor_evaluation_id: 'cli-3', deployment_monitor_evaluation: { head_sha: 'main' } })),
      svc(stack, ['evaluations', 'record', '--org', 'nowhere'], body),
      svc(stack, ['evaluations', 'record'], body),
      svc(stack, ['evaluations', 'record', '--org', 'acme'], 'not json'),
    ]);
    expect(bad).toMatchObject({ code: 1, stderr: expect.stringMatching(/head_sha/) });
    expect(nowhere).toMatchObject({ code: 1, stderr: expect.stringMatching(/organization 'nowhere' not found/) });
    expect(noOrg.code).toBe(2);
    expect(notJson.code).toBe(2);
    expect((await stack.rpc(`${S}/GetDeploymentMonitorEvaluation`, { name: 'deployment-monitor-evaluations/cli-3' })).status).toBe(404);
  });

  it('RecordDeploymentMonitorEvaluation records progress: RUNNING first, then the outcome; a finished evaluation is final', async () => {
    const running = await record('rpc-1', { session_name: 'agents/w/sessions/s-9', environment: 'production', repository: 'acme/shop', head_sha: 'abcdef1' });
    expect(running.status).toBe(200);
    expect(running.body.evaluation).toMatchObject({ status: 'DEPLOYMENT_MONITOR_EVALUATION_STATUS_RUNNING', environment: 'production' });
    const done = await record('rpc-1', {
      status: 'DEPLOYMENT_MONITOR_EVALUATION_STATUS_COMPLETED',
      summary: 'p99 latency up 30%',
      overall_status: 'regressed',
      environment: 'ignored: fixed by the first record',
    });
    expect(done.body.evaluation).toMatchObject({
      status: 'DEPLOYMENT_MONITOR_EVALUATION_STATUS_COMPLETED',
      overallStatus: 'regressed',
      environment: 'production',
      sessionName: 'agents/w/sessions/s-9',
    });
    const late = await record('rpc-1', { summary: 'changed my mind' });
    expect(late.body).toMatchObject({ error: { status: 'FAILED_PRECONDITION' } });
    expect((await record('rpc-2', { status: 'DONE' })).status).toBe(400);
    expect((await record('-bad', {})).status).toBe(400);
    expect((await stack.rpc(`${S}/RecordDeploymentMonitorEvaluation`, { deployment_monitor_evaluation: {} }, DEPLOYER)).status).toBe(400);
  });

  it('List returns the spec subset, newest first, with filters and pages', async () => {
    await record('l-1', { environment: 'eu', repository: 'acme/api', head_sha: 'aaaaaaa', summary: 'long text', overall_status: 'successful', status: 'DEPLOYMENT_MONITOR_EVALUATION_STATUS_COMPLETED' });
    await record('l-2', { environment: 'eu', repository: 'acme/web', head_sha: 'bbbbbbb', overall_status: 'regressed', status: 'DEPLOYMENT_MONITOR_EVALUATION_STATUS_COMPLETED' });
    await record('l-3', { environment: 'us', repository: 'acme/api', head_sha: 'ccccccc' });
    const eu = await list({ filter: "environment = 'eu'" });
    expect(eu.status).toBe(200);
    expect(eu.body.evaluations.map((e) => e.name)).toEqual(['deployment-monitor-evaluations/l-2', 'deployment-monitor-evaluations/l-1']);
    expect(Object.keys(eu.body.evaluations[1]).sort()).toEqual(
      ['createTime', 'environment', 'headSha', 'name', 'overallStatus', 'repository', 'status', 'updateTime'].sort(),
    );
    const api = await list({ filter: "repository = 'acme/api' AND status = DEPLOYMENT_MONITOR_EVALUATION_STATUS_RUNNING" });
    expect(api.body.evaluations.map((e) => e.name)).toEqual(['deployment-monitor-evaluations/l-3']);
    const regressed = await list({ filter: "overall_status = 'regressed'" });
    expect(regressed.body.evaluations.map((e) => e.name)).toEqual(['deployment-monitor-evaluations/l-2', 'deployment-monitor-evaluations/rpc-1']);
    const since = eu.body.evaluations[1].createTime;
    const page = await list({ filter: `create_time >= '${since}'`, order_by: 'create_time asc', page_size: 2 });
    expect(page.body.evaluations.map((e) => e.name)).toEqual(['deployment-monitor-evaluations/l-1', 'deployment-monitor-evaluations/l-2']);
    const next = await list({ filter: `create_time >= '${since}'`, order_by: 'create_time asc', page_size: 2, page_token: page.body.nextPageToken });
    expect(next.body).toEqual({ evaluations: [expect.objectContaining({ name: 'deployment-monitor-evaluations/l-3' })], nextPageToken: '' });
    expect((await list({ filter: 'summary = x' })).status).toBe(400);
  });

  it('recording needs AGENTS_WRITE; reads need only membership', async () => {
    expect((await record('bob-1', {}, BOB)).body).toMatchObject({ error: { status: 'PERMISSION_DENIED' } });
    expect((await stack.rpc(`${S}/GetDeploymentMonitorEvaluation`, { name: 'deployment-monitor-evaluations/cli-1' }, BOB)).status).toBe(200);
    expect((await list({}, BOB)).body.evaluations.length).toBeGreaterThan(0);
  });

  it('another organization sees none of it and records its own under the same IDs', async () => {
    expect((await stack.rpc(`${S}/GetDeploymentMonitorEvaluation`, { name: 'deployment-monitor-evaluations/cli-1' }, GINA)).status).toBe(404);
    expect((await list({}, GINA)).body.evaluations).toEqual([]);
    const theirs = await record('rpc-1', { environment: 'ledger' }, GINA);
    expect(theirs.body.evaluation).toMatchObject({ environment: 'ledger', status: 'DEPLOYMENT_MONITOR_EVALUATION_STATUS_RUNNING' });
    const ours = await stack.rpc<{ evaluation: Evaluation }>(`${S}/GetDeploymentMonitorEvaluation`, { name: 'deployment-monitor-evaluations/rpc-1' });
    expect(ours.body.evaluation).toMatchObject({ environment: 'production', overallStatus: 'regressed' });
  });
});
