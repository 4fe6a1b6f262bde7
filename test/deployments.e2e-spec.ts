import { execFile } from 'node:child_process';
import { BOB, CLI_MAIN, DEPLOYER, GINA, Stack } from './support/harness';

const S = 'svc.deployments.v1.DeploymentsService';

interface Deployment {
  name: string;
  source?: string;
  status: string;
  labels?: Record<string, string>;
  description?: string;
  createTime: string;
  updateTime: string;
  startTime?: string;
  completeTime?: string;
}
interface StatusEvent {
  name: string;
  deployment: string;
  status: string;
  description?: string;
  eventTime: string;
  createTime: string;
}
interface Environment {
  name: string;
  monitoringEnabled: boolean;
  description?: string;
  createTime: string;
  updateTime: string;
}
type Page<K extends string, T> = { [key in K]: T[] } & { nextPageToken: string };

describe('deployments (svc.deployments.v1.DeploymentsService)', () => {
  let stack: Stack;
  const create = (id: string, deployment: Record<string, unknown>, as = DEPLOYER) =>
    stack.rpc<{ deployment: Deployment }>(`${S}/CreateDeployment`, { deployment_id: id, deployment }, as);
  const setStatus = (name: string, status: string, extra: Record<string, unknown> = {}, as = DEPLOYER) =>
    stack.rpc<{ deployment: Deployment }>(`${S}/UpdateDeploymentStatus`, { name, status, ...extra }, as);
  const events = (body: Record<string, unknown>, as?: typeof GINA) =>
    stack.rpc<Page<'statusEvents', StatusEvent>>(`${S}/ListDeploymentStatusEvents`, body, as);
  const list = (body: Record<string, unknown>) => stack.rpc<Page<'deployments', Deployment>>(`${S}/ListDeployments`, body);

  beforeAll(async () => {
    stack = await Stack.start();
  });
  afterAll(async () => {
    await stack.destroy();
  });

  it('CreateDeployment is PENDING whatever the caller sends, keeps label keys verbatim, ignores output-only fields', async () => {
    const res = await create('rel-1', {
      source: 'DEPLOYMENT_SOURCE_CODEHOST',
      labels: { environment: 'production', repository: 'acme/shop', sha: 'abc1234', build_id: '7', buildNo: '8' },
      description: 'release 1',
      external_url: 'https://codehost.example/acme/shop/deployments/1',
      status: 'DEPLOYMENT_STATUS_SUCCESS',
      start_time: '2020-01-01T00:00:00Z',
      name: 'deployments/hijack',
    });
    expect(res.status).toBe(200);
    expect(res.body.deployment).toEqual({
      name: 'deployments/rel-1',
      source: 'DEPLOYMENT_SOURCE_CODEHOST',
      status: 'DEPLOYMENT_STATUS_PENDING',
      labels: { environment: 'production', repository: 'acme/shop', sha: 'abc1234', build_id: '7', buildNo: '8' },
      description: 'release 1',
      externalUrl: 'https://codehost.example/acme/shop/deployments/1',
      createTime: expect.stringMatching(/^20\d\d-/),
      updateTime: res.body.deployment.createTime,
    });
    const got = await stack.rpc<{ deployment: Deployment }>(`${S}/GetDeployment`, { name: 'deployments/rel-1' });
    expect(got.body.deployment).toEqual(res.body.deployment);
  });

  it('CreateDeployment validates the ID, the source, the labels; an existing ID is ALREADY_EXISTS', async () => {
    expect((await create('-bad', {})).status).toBe(400);
    expect((await stack.rpc(`${S}/CreateDeployment`, { deployment: {} }, DEPLOYER)).body).toMatchObject({
      error: { status: 'INVALID_ARGUMENT', message: expect.stringMatching(/deployment_id/) },
    });
    expect((await create('src', { source: 'DEPLOYMENT_SOURCE_FTP' })).body).toMatchObject({ error: { message: expect.stringMatching(/source/) } });
    expect((await create('lbl', { labels: { environment: 'prod/eu' } })).body).toMatchObject({ error: { message: expect.stringMatching(/labels.environment/) } });
    expect((await create('lbl', { labels: { n: 1 } })).status).toBe(400);
    expect((await stack.rpc(`${S}/GetDeployment`, { name: 'deployments/lbl' })).status).toBe(404);
    expect((await create('dup', {})).status).toBe(200);
    expect((await create('dup', {})).body).toMatchObject({ error: { status: 'ALREADY_EXISTS' } });
  });

  it('UpdateDeploymentStatus moves forward, sets start and complete times and appends status events', async () => {
    await create('rel-2', { labels: { environment: 'staging', repository: 'acme/shop' } });
    const started = await setStatus('deployments/rel-2', 'DEPLOYMENT_STATUS_IN_PROGRESS', {
      description: 'rolling out',
      event_time: '2030-01-01T10:00:00Z',
    });
    expect(started.status).toBe(200);
    expect(started.body.deployment).toMatchObject({ status: 'DEPLOYMENT_STATUS_IN_PROGRESS', startTime: '2030-01-01T10:00:00.000Z' });
    expect(started.body.deployment.completeTime).toBeUndefined();
    await setStatus('deployments/rel-2', 'DEPLOYMENT_STATUS_IN_PROGRESS', { description: 'half way', event_time: '2030-01-01T10:05:00Z' });
    const done = await setStatus('deployments/rel-2', 'DEPLOYMENT_STATUS_SUCCESS', { event_time: '2030-01-01T10:09:00+01:00' });
    // 10:09+01:00 is 09:09Z, before the start: refused, nothing recorded.
    expect(done.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringMatching(/start_time/) } });
    const ok = await setStatus('deployments/rel-2', 'DEPLOYMENT_STATUS_SUCCESS', { description: 'all green', event_time: '2030-01-01T10:09:00Z' });
    expect(ok.body.deployment).toMatchObject({ status: 'DEPLOYMENT_STATUS_SUCCESS', completeTime: '2030-01-01T10:09:00.000Z' });

    const changelog = await events({ parent: 'deployments/rel-2' });
    expect(changelog.status).toBe(200);
    // Default order event_time desc; the initial PENDING is event 1, dated at creation.
    expect(changelog.body.statusEvents.map((e) => [e.name, e.status, e.description])).toEqual([
      ['deployments/rel-2/status-events/4', 'DEPLOYMENT_STATUS_SUCCESS', 'all green'],
      ['deployments/rel-2/status-events/3', 'DEPLOYMENT_STATUS_IN_PROGRESS', 'half way'],
      ['deployments/rel-2/status-events/2', 'DEPLOYMENT_STATUS_IN_PROGRESS', 'rolling out'],
      ['deployments/rel-2/status-events/1', 'DEPLOYMENT_STATUS_PENDING', undefined],
    ]);
    expect(changelog.body.statusEvents[0]).toEqual({
      name: 'deployments/rel-2/status-events/4',
      deployment: 'deployments/rel-2',
      status: 'DEPLOYMENT_STATUS_SUCCESS',
      description: 'all green',
      eventTime: '2030-01-01T10:09:00.000Z',
      createTime: ok.body.deployment.updateTime,
    });
    expect(changelog.body.statusEvents[3].eventTime).toBe(changelog.body.statusEvents[3].createTime);
  });

  it('a finished deployment keeps its status; a repeat of it changes nothing; PENDING is never re-entered', async () => {
    await create('rel-3', {});
    await setStatus('deployments/rel-3', 'DEPLOYMENT_STATUS_IN_PROGRESS');
    expect((await setStatus('deployments/rel-3', 'DEPLOYMENT_STATUS_PENDING')).body).toMatchObject({ error: { status: 'FAILED_PRECONDITION' } });
    const failed = await setStatus('deployments/rel-3', 'DEPLOYMENT_STATUS_FAILURE', { description: 'health check' });
    expect(failed.body.deployment).toMatchObject({ status: 'DEPLOYMENT_STATUS_FAILURE', completeTime: expect.any(String) });
    const again = await setStatus('deployments/rel-3', 'DEPLOYMENT_STATUS_FAILURE');
    expect(again.body.deployment).toEqual(failed.body.deployment);
    const changed = await setStatus('deployments/rel-3', 'DEPLOYMENT_STATUS_SUCCESS');
    expect(changed.status).toBe(400);
    expect(changed.body).toMatchObject({ error: { status: 'FAILED_PRECONDITION', message: expect.stringMatching(/already finished/) } });
    expect((await events({ parent: 'deployments/rel-3' })).body.statusEvents).toHaveLength(3);
    expect((await setStatus('deployments/rel-3', 'DEPLOYMENT_STATUS_DONE')).status).toBe(400);
    expect((await setStatus('deployments/nope', 'DEPLOYMENT_STATUS_IN_PROGRESS')).status).toBe(404);
    expect((await setStatus('notes/rel-3', 'DEPLOYMENT_STATUS_IN_PROGRESS')).status).toBe(400);
  });

  it('ListDeploymentStatusEvents filters, orders and pages within its parent; the parent is required and must exist', async () => {
    await create('rel-4', {});
    for (let i = 1; i <= 4; i++) {
      await setStatus('deployments/rel-4', 'DEPLOYMENT_STATUS_IN_PROGRESS', { description: `step ${i}`, event_time: `2031-01-0${i}T00:00:00Z` });
    }
    const asc = await events({ parent: 'deployments/rel-4', order_by: 'event_time asc', filter: "event_time >= '2031-01-02T00:00:00Z'" });
    expect(asc.body.statusEvents.map((e) => e.description)).toEqual(['step 2', 'step 3', 'step 4']);
    const pending = await events({ parent: 'deployments/rel-4', filter: 'status = DEPLOYMENT_STATUS_PENDING' });
    expect(pending.body.statusEvents.map((e) => e.name)).toEqual(['deployments/rel-4/status-events/1']);
    const first = await events({ parent: 'deployments/rel-4', order_by: 'create_time asc', page_size: 2 });
    expect(first.body.statusEvents.map((e) => e.name)).toEqual(['deployments/rel-4/status-events/1', 'deployments/rel-4/status-events/2']);
    const second = await events({ parent: 'deployments/rel-4', order_by: 'create_time asc', page_size: 2, page_token: first.body.nextPageToken });
    expect(second.body.statusEvents.map((e) => e.name)).toEqual(['deployments/rel-4/status-events/3', 'deployments/rel-4/status-events/4']);
    const third = await events({ parent: 'deployments/rel-4', order_by: 'create_time asc', page_size: 2, page_token: second.body.nextPageToken });
    expect(third.body).toEqual({ statusEvents: [{ name: 'deployments/rel-4/status-events/5', deployment: 'deployments/rel-4', status: 'DEPLOYMENT_STATUS_IN_PROGRESS', description: 'step 4', eventTime: '2031-01-04T00:00:00.000Z', createTime: expect.any(String) }], nextPageToken: '' });
    expect((await events({ parent: 'deployments/rel-1', page_token: first.body.nextPageToken })).status).toBe(400);
    expect((await events({})).status).toBe(400);
    expect((await events({ parent: 'notes/rel-4' })).status).toBe(400);
    expect((await events({ parent: 'deployments/none' })).status).toBe(404);
    expect((await events({ parent: 'deployments/rel-4', filter: 'colour = red' })).status).toBe(400);
  });

  it('ListDeployments filters on labels, status and create_time, and orders and pages', async () => {
    const before = new Date().toISOString();
    await create('f-1', { labels: { environment: 'qa', repository: 'acme/api' } });
    await create('f-2', { labels: { environment: 'qa', repository: 'acme/web' } });
    await create('f-3', { labels: { environment: 'perf', repository: 'acme/api' } });
    await setStatus('deployments/f-2', 'DEPLOYMENT_STATUS_SUCCESS');
    const qa = await list({ filter: "labels.environment = 'qa'" });
    expect(qa.body.deployments.map((d) => d.name)).toEqual(['deployments/f-2', 'deployments/f-1']);
    const api = await list({ filter: "labels.repository = 'acme/api' AND create_time >= '" + before + "'", order_by: 'create_time asc' });
    expect(api.body.deployments.map((d) => d.name)).toEqual(['deployments/f-1', 'deployments/f-3']);
    const success = await list({ filter: `status = 'DEPLOYMENT_STATUS_SUCCESS' AND labels.environment = "qa"` });
    expect(success.body.deployments.map((d) => d.name)).toEqual(['deployments/f-2']);
    const page = await list({ filter: `create_time >= "${before}"`, page_size: 2 });
    expect(page.body.deployments).toHaveLength(2);
    const rest = await list({ filter: `create_time >= "${before}"`, page_size: 2, page_token: page.body.nextPageToken });
    expect(rest.body.deployments.map((d) => d.name)).toEqual(['deployments/f-1']);
    expect((await list({ filter: "status = 'DONE'" })).status).toBe(400);
  });

  it('an environment comes into being with the first deployment naming it, monitoring off', async () => {
    await create('env-1', { labels: { environment: 'canary' } });
    const got = await stack.rpc<{ deploymentEnvironment: Environment }>(`${S}/GetDeploymentEnvironment`, { name: 'deployment-environments/canary' });
    expect(got.status).toBe(200);
    const first = await stack.rpc<{ deployment: Deployment }>(`${S}/GetDeployment`, { name: 'deployments/env-1' });
    expect(got.body.deploymentEnvironment).toEqual({
      name: 'deployment-environments/canary',
      monitoringEnabled: false,
      createTime: first.body.deployment.createTime,
      updateTime: first.body.deployment.createTime,
    });
    await create('env-2', { labels: { environment: 'canary' } });
    const still = await stack.rpc<{ deploymentEnvironment: Environment }>(`${S}/GetDeploymentEnvironment`, { name: 'deployment-environments/canary' });
    expect(still.body.deploymentEnvironment).toEqual(got.body.deploymentEnvironment);
    // An update that changes nothing answers the environment as it is, though it has no stream of its own yet.
    const unchanged = await stack.rpc(`${S}/UpdateDeploymentEnvironment`, {
      deployment_environment: { name: 'deployment-environments/canary', monitoring_enabled: false },
    }, DEPLOYER);
    expect(unchanged.status).toBe(200);
    expect(unchanged.body).toEqual({ deploymentEnvironment: got.body.deploymentEnvironment });
    expect((await stack.rpc(`${S}/GetDeploymentEnvironment`, { name: 'deployment-environments/nowhere' })).status).toBe(404);
  });

  it('UpdateDeploymentEnvironment: mask defaults to monitoring_enabled, unlisted fields untouched, NOT_FOUND for unknown environments', async () => {
    await create('env-3', { labels: { environment: 'eu-1' } });
    const U = `${S}/UpdateDeploymentEnvironment`;
    const on = await stack.rpc<{ deploymentEnvironment: Environment }>(U, {
      deployment_environment: { name: 'deployment-environments/eu-1', monitoring_enabled: true, description: 'not in the default mask' },
    }, DEPLOYER);
    expect(on.status).toBe(200);
    expect(on.body.deploymentEnvironment).toMatchObject({ monitoringEnabled: true });
    expect(on.body.deploymentEnvironment.description).toBeUndefined();
    const described = await stack.rpc<{ deploymentEnvironment: Environment }>(U, {
      deployment_environment: { name: 'deployment-environments/eu-1', monitoring_enabled: false, description: 'Europe' },
      update_mask: 'description',
    }, DEPLOYER);
    expect(described.body.deploymentEnvironment).toMatchObject({ monitoringEnabled: true, description: 'Europe' });
    const off = await stack.rpc<{ deploymentEnvironment: Environment }>(U, {
      deployment_environment: { name: 'deployment-environments/eu-1', monitoring_enabled: false },
    }, DEPLOYER);
    expect(off.body.deploymentEnvironment).toMatchObject({ monitoringEnabled: false, description: 'Europe' });
    expect(off.body.deploymentEnvironment.updateTime > off.body.deploymentEnvironment.createTime).toBe(true);
    const got = await stack.rpc<{ deploymentEnvironment: Environment }>(`${S}/GetDeploymentEnvironment`, { name: 'deployment-environments/eu-1' });
    expect(got.body.deploymentEnvironment).toEqual(off.body.deploymentEnvironment);
    // A later deployment to the environment leaves its settings alone.
    await create('env-4', { labels: { environment: 'eu-1' } });
    const after = await stack.rpc<{ deploymentEnvironment: Environment }>(`${S}/GetDeploymentEnvironment`, { name: 'deployment-environments/eu-1' });
    expect(after.body.deploymentEnvironment).toEqual(off.body.deploymentEnvironment);

    const missing = await stack.rpc(U, { deployment_environment: { name: 'deployment-environments/mars', monitoring_enabled: true } }, DEPLOYER);
    expect(missing.body).toMatchObject({ error: { status: 'NOT_FOUND' } });
    const cleared = await stack.rpc(U, { deployment_environment: { name: 'deployment-environments/eu-1' } }, DEPLOYER);
    expect(cleared.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringMatching(/monitoring_enabled/) } });
    const unknown = await stack.rpc(U, { deployment_environment: { name: 'deployment-environments/eu-1' }, update_mask: 'colour' }, DEPLOYER);
    expect(unknown.status).toBe(400);
  });

  it('ListDeploymentEnvironments orders by create_time asc by default and pages', async () => {
    const all = await stack.rpc<Page<'deploymentEnvironments', Environment>>(`${S}/ListDeploymentEnvironments`, {});
    const names = all.body.deploymentEnvironments.map((e) => e.name);
    expect(names).toEqual(expect.arrayContaining(['deployment-environments/production', 'deployment-environments/canary', 'deployment-environments/eu-1']));
    const times = all.body.deploymentEnvironments.map((e) => e.createTime);
    expect(times).toEqual([...times].sort());
    const desc = await stack.rpc<Page<'deploymentEnvironments', Environment>>(`${S}/ListDeploymentEnvironments`, { order_by: 'create_time desc' });
    expect(desc.body.deploymentEnvironments.map((e) => e.name)).toEqual([...names].reverse());
    const page = await stack.rpc<Page<'deploymentEnvironments', Environment>>(`${S}/ListDeploymentEnvironments`, { page_size: 2 });
    expect(page.body.deploymentEnvironments.map((e) => e.name)).toEqual(names.slice(0, 2));
    const next = await stack.rpc<Page<'deploymentEnvironments', Environment>>(`${S}/ListDeploymentEnvironments`, { page_size: 2, page_token: page.body.nextPageToken });
    expect(next.body.deploymentEnvironments.map((e) => e.name)).toEqual(names.slice(2, 4));
  });

  it('writes need CHANGE_MONITOR_WRITE; reads need only membership', async () => {
    expect((await create('bob-1', {}, BOB)).body).toMatchObject({ error: { status: 'PERMISSION_DENIED' } });
    expect((await setStatus('deployments/rel-1', 'DEPLOYMENT_STATUS_IN_PROGRESS', {}, BOB)).status).toBe(403);
    const toggle = await stack.rpc(`${S}/UpdateDeploymentEnvironment`, { deployment_environment: { name: 'deployment-environments/production', monitoring_enabled: true } }, BOB);
    expect(toggle.status).toBe(403);
    expect((await stack.rpc(`${S}/GetDeployment`, { name: 'deployments/rel-1' }, BOB)).status).toBe(200);
    expect((await events({ parent: 'deployments/rel-1' }, BOB)).status).toBe(200);
  });

  it('another organization sees none of it and cannot change it', async () => {
    expect((await stack.rpc(`${S}/GetDeployment`, { name: 'deployments/rel-1' }, GINA)).status).toBe(404);
    expect((await stack.rpc<Page<'deployments', Deployment>>(`${S}/ListDeployments`, {}, GINA)).body.deployments).toEqual([]);
    expect((await events({ parent: 'deployments/rel-1' }, GINA)).status).toBe(404);
    expect((await stack.rpc(`${S}/GetDeploymentEnvironment`, { name: 'deployment-environments/production' }, GINA)).status).toBe(404);
    expect((await stack.rpc<Page<'deploymentEnvironments', Environment>>(`${S}/ListDeploymentEnvironments`, {}, GINA)).body.deploymentEnvironments).toEqual([]);
    expect((await setStatus('deployments/rel-1', 'DEPLOYMENT_STATUS_IN_PROGRESS', {}, GINA)).status).toBe(404);
    const toggle = await stack.rpc(`${S}/UpdateDeploymentEnvironment`, { deployment_environment: { name: 'deployment-environments/production', monitoring_enabled: true } }, GINA);
    expect(toggle.status).toBe(404);
    // The same IDs are free in globex, with their own environment.
    expect((await create('rel-1', { labels: { environment: 'production' } }, GINA)).status).toBe(200);
    const mine = await stack.rpc<{ deployment: Deployment }>(`${S}/GetDeployment`, { name: 'deployments/rel-1' });
    expect(mine.body.deployment.description).toBe('release 1');
  });

  it('request_id makes a status change safe to retry', async () => {
    await create('retry', {});
    const body = { event_time: '2032-01-01T00:00:00Z', request_id: 'status-retry-1' };
    const first = await setStatus('deployments/retry', 'DEPLOYMENT_STATUS_IN_PROGRESS', body);
    const second = await setStatus('deployments/retry', 'DEPLOYMENT_STATUS_IN_PROGRESS', body);
    expect(second.body).toEqual(first.body);
    expect((await events({ parent: 'deployments/retry' })).body.statusEvents).toHaveLength(2);
  });

  it('a rebuild of the deployments projection gives the same deployments, status events and environments', async () => {
    const read = async () => ({
      deployments: (await list({ page_size: 1000 })).body,
      events: (await events({ parent: 'deployments/rel-2' })).body,
      environments: (await stack.rpc(`${S}/ListDeploymentEnvironments`, { page_size: 1000 })).body,
    });
    const before = await read();
    const env = { ...process.env, SVC_DATA_DIR: stack.dataDir, EVENTSTORE_URL: '', MONGODB_URL: '' };
    const code = await new Promise<number>((resolve) =>
      execFile(process.execPath, [CLI_MAIN, 'projections', 'rebuild', 'deployments'], { env }, (error) => resolve(error ? Number(error.code ?? 1) : 0)),
    );
    expect(code).toBe(0);
    expect(await read()).toEqual(before);
    expect(before.environments).toMatchObject({ deploymentEnvironments: expect.arrayContaining([expect.objectContaining({ name: 'deployment-environments/eu-1', description: 'Europe' })]) });
  });
});
