/**
 * The reactors that start sessions from triggers (docs/decisions.md, "Trigger reactors"): cron on a
 * one-second schedule (cron-parser's seconds field), post-deploy after its delay on a durable timer,
 * row triggers with their cooldown, and a projector killed (kill -9) with a timer pending.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GitFixture } from './support/git-fixture';
import { ALICE, BOB, CLI_MAIN, eventually, sleep, Stack, stopProcess, TEST_CONFIG } from './support/harness';

const AGENTS = 'svc.nxagent.v2.AgentService';
const TRIGGERS = 'svc.triggers.v1.TriggersService';
const DEPLOYMENTS = 'svc.deployments.v1.DeploymentsService';
const ROWS = 'svc.rows.v1.RowsService/IngestRows';

interface Session {
  name: string;
  title: string;
  createTime: string;
  associatedResources?: string[];
}

describe('trigger reactors', () => {
  let stack: Stack;
  let projector: ChildProcess;
  const killProjector = () => stopProcess(projector, 'SIGKILL');
  const restartProjector = () => void (projector = stack.startProjector());

  const sessionsOf = async (agent: string): Promise<Session[]> => {
    const res = await stack.rpc<{ sessions?: Session[] }>(`${AGENTS}/ListSessions`, { parent: `agents/${agent}`, page_size: 1000 });
    expect(res.status).toBe(200);
    return res.body.sessions ?? [];
  };
  /** The occasion a trigger's session was started for (its title: `<trigger>: <source>|<occasion>`). */
  const occasionOf = (s: Session) => s.title.slice(s.title.indexOf('|') + 1);
  const countReaches = (agent: string, n: number, timeoutMs = 20_000) =>
    eventually(async () => {
      const sessions = await sessionsOf(agent);
      return sessions.length >= n ? sessions : undefined;
    }, timeoutMs);
  const createAgent = async (id: string) => expect((await stack.rpc(`${AGENTS}/CreateAgent`, { agent_id: id, agent: { prompt: 'You look into things.' } })).status).toBe(200);
  const createTrigger = async (id: string, agent: string, configuration: Record<string, unknown>, enabled = true) => {
    const res = await stack.rpc<{ trigger: { updateTime: string } }>(`${TRIGGERS}/CreateTrigger`, { trigger_id: id, trigger: { agent: `agents/${agent}`, configuration, enabled } });
    expect(res.status).toBe(200);
    return res.body.trigger;
  };
  const setEnabled = async (id: string, enabled: boolean) => {
    const res = await stack.rpc<{ trigger: { updateTime: string } }>(`${TRIGGERS}/UpdateTrigger`, { trigger: { name: `triggers/${id}`, enabled }, update_mask: 'enabled' });
    expect(res.status).toBe(200);
    return res.body.trigger;
  };

  // acme's code host (connections/github) holds acme/app: c0 ─ release ─ later on main, c0 ─ side on a branch.
  const git = new GitFixture();
  const app = git.repo('acme/app');
  app.commit('c0', { 'README.md': 'app\n' });
  app.branch('side');
  const commits = { release: app.commit('release'), later: app.commit('later'), side: '' };
  app.checkout('side');
  commits.side = app.commit('side work');
  app.checkout('main');

  beforeAll(async () => {
    stack = await Stack.start({ env: { SVC_CRON_TICK_MS: '200' }, config: TEST_CONFIG.replace('root: ./repos', `root: "${git.root}"`) });
    projector = stack.processes[0]; // the harness starts the projector first
  });
  afterAll(async () => {
    await stack.destroy();
    git.remove();
  });

  describe('cron', () => {
    it('fires a session at each scheduled time while enabled, none while disabled, and none owed for the disabled time', async () => {
      await createAgent('ticker');
      await createTrigger('every-second', 'ticker', { cron: { schedule: '* * * * * *', timezone: 'Europe/Paris' } }, false);
      await sleep(2500);
      expect(await sessionsOf('ticker')).toEqual([]);

      const enabled = await setEnabled('every-second', true);
      const sessions = await countReaches('ticker', 3);
      for (const s of sessions) {
        expect(s.associatedResources).toEqual(['triggers/every-second']);
        // Whole seconds, all after the enabling: nothing owed from while it was disabled.
        expect(occasionOf(s)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
        expect(Date.parse(occasionOf(s))).toBeGreaterThan(Date.parse(enabled.updateTime));
      }
      expect(new Set(sessions.map(occasionOf)).size).toBe(sessions.length);

      await setEnabled('every-second', false);
      const atDisable = (await sessionsOf('ticker')).length;
      await sleep(2500);
      // A tick under way when it was disabled may still fire once; none after.
      expect((await sessionsOf('ticker')).length).toBeLessThanOrEqual(atDisable + 1);
    });

    it('times missed while no projector ran fire once (the latest), not as a burst, and each session starts the agent', async () => {
      await createAgent('nightly');
      await createTrigger('catch-up', 'nightly', { cron: { schedule: '* * * * * *', timezone: 'UTC' } });
      await countReaches('nightly', 1);
      await killProjector();
      const down = Date.now();
      await sleep(3500);
      const up = Date.now();
      restartProjector();
      const before = (await sessionsOf('nightly')).length;
      const after = await countReaches('nightly', before + 2);
      const missed = after.map((s) => Date.parse(occasionOf(s))).filter((t) => t > down + 1000 && t < up - 1000);
      expect(missed.length).toBeLessThanOrEqual(1);
      expect(new Set(after.map(occasionOf)).size).toBe(after.length);
      // The seed is a checkpoint write: the agent runtime answers it.
      const read = await eventually(async () => {
        const res = await stack.rpc<{ messages: unknown[] }>(`${AGENTS}/Read`, { session: after[0].name });
        return res.body.messages?.length === 2 ? res.body : undefined;
      });
      expect(JSON.stringify(read.messages[0])).toContain('Cron trigger triggers/catch-up fired for its scheduled time');
      await setEnabled('catch-up', false);
    });
  });

  describe('post-deploy', () => {
    const deploy = async (id: string, labels: Record<string, string>) => {
      expect((await stack.rpc(`${DEPLOYMENTS}/CreateDeployment`, { deployment_id: id, deployment: { labels } })).status).toBe(200);
      const done = await stack.rpc<{ deployment: { completeTime: string } }>(`${DEPLOYMENTS}/UpdateDeploymentStatus`, { name: `deployments/${id}`, status: 'DEPLOYMENT_STATUS_SUCCESS' });
      expect(done.status).toBe(200);
      return done.body.deployment;
    };

    it('fires once, after the delay, for a successful deployment of its repository, environment and sha; not for others', async () => {
      await createAgent('releaser');
      await createTrigger('after-release', 'releaser', { post_deploy: { repository: 'acme/shop', environment: 'prod', sha: 'abc1234', delay: '3s' } });
      await deploy('staging-1', { repository: 'acme/shop', environment: 'staging', sha: 'abc1234ffff' });
      await deploy('other-sha', { repository: 'acme/shop', environment: 'prod', sha: 'def5678' });
      const prod = await deploy('prod-1', { repository: 'acme/shop', environment: 'prod', sha: 'ABC1234EEEE' });
      const [session] = await countReaches('releaser', 1);
      expect(Date.parse(session.createTime) - Date.parse(prod.completeTime)).toBeGreaterThanOrEqual(3000);
      expect(occasionOf(session)).toBe('deployments/prod-1');
      await sleep(1500);
      expect(await sessionsOf('releaser')).toHaveLength(1);
    });

    it('with a code host that has the repository, fires once the release commit lands: in a later deployed commit, not a side branch', async () => {
      await createAgent('lander');
      await createTrigger('landed', 'lander', { post_deploy: { repository: 'acme/app', environment: 'prod', sha: commits.release.slice(0, 10), delay: '1s' } });
      await deploy('app-side', { repository: 'acme/app', environment: 'prod', sha: commits.side });
      await deploy('app-later', { repository: 'acme/app', environment: 'prod', sha: commits.later });
      const [session] = await countReaches('lander', 1);
      expect(occasionOf(session)).toBe('deployments/app-later');
      await sleep(2000);
      expect(await sessionsOf('lander')).toHaveLength(1);
    });

    it('a projector killed (kill -9) while the timer is pending fires it exactly once after a restart', async () => {
      await createAgent('survivor');
      await createTrigger('after-crash', 'survivor', { post_deploy: { repository: 'acme/api', environment: 'prod', sha: '1234567', delay: '4s' } });
      const done = await deploy('crash-1', { repository: 'acme/api', environment: 'prod', sha: '1234567' });
      await sleep(1500); // the timer is recorded and waiting
      await killProjector();
      expect(await sessionsOf('survivor')).toEqual([]);
      restartProjector();
      const [session] = await countReaches('survivor', 1);
      expect(Date.parse(session.createTime) - Date.parse(done.completeTime)).toBeGreaterThanOrEqual(4000);
      // Killed again right after the fire: the restarted reactor finds the occasion fired.
      await killProjector();
      restartProjector();
      await sleep(2000);
      expect(await sessionsOf('survivor')).toHaveLength(1);
    });
  });

  describe('rows', () => {
    it('a matching row starts a session, at most once per cooldown; other rows start none', async () => {
      await createAgent('watcher');
      await createAgent('sentinel');
      await createTrigger('big-failures', 'watcher', { row: { table_name: 'orders', predicate: "status = 'failed' AND amount > 100", cooldown: '3600s' } });
      // Matches every row with no cooldown: its sessions show how far the reactor got.
      await createTrigger('zz-every-order', 'sentinel', { row: { table_name: 'orders', predicate: 'amount >= 0', cooldown: '0s' } });
      const ingest = (rows: unknown[]) => stack.rpc<{ ingestion: string; rowCount: number }>(ROWS, { table: 'orders', rows });

      const first = await ingest([{ status: 'failed', amount: 50 }, { status: 'ok', amount: 500 }]);
      expect(first.status).toBe(200);
      expect(first.body.rowCount).toBe(2);
      await countReaches('sentinel', 2);
      expect(await sessionsOf('watcher')).toEqual([]);

      await ingest([{ status: 'failed', amount: 150, order_id: 'o-1' }]);
      await countReaches('sentinel', 3);
      const [fired] = await countReaches('watcher', 1);
      const read = await stack.rpc<{ messages: unknown[] }>(`${AGENTS}/Read`, { session: fired.name });
      expect(JSON.stringify(read.body.messages[0])).toContain('o-1'); // column names keep their spelling

      await ingest([{ status: 'failed', amount: 999 }]);
      await countReaches('sentinel', 4);
      expect(await sessionsOf('watcher')).toHaveLength(1);
    });

    it('a short cooldown lets a later match fire again; a retried request (same request_id) fires nothing more', async () => {
      await createAgent('pager');
      await createTrigger('eu-retries', 'pager', { row: { table_name: 'payments', predicate: "region IN ('eu', 'us') AND NOT retried", cooldown: '1s' } });
      const row = { region: 'eu', retried: false };
      expect((await stack.rpc(ROWS, { table: 'payments', rows: [row], request_id: 'batch-1' })).status).toBe(200);
      await countReaches('pager', 1);
      expect((await stack.rpc(ROWS, { table: 'payments', rows: [row], request_id: 'batch-1' })).status).toBe(200);
      await sleep(1100);
      expect((await stack.rpc(ROWS, { table: 'payments', rows: [{ region: 'us', retried: true }, row] })).status).toBe(200);
      await countReaches('pager', 2);
      await sleep(1000);
      expect(await sessionsOf('pager')).toHaveLength(2);
    });

    it('rows ingested with the CLI (`rows ingest`) start sessions the same way', async () => {
      await createAgent('cli-watcher');
      await createTrigger('cli-rows', 'cli-watcher', { row: { table_name: 'jobs', predicate: "state = 'stuck'", cooldown: '0s' } });
      const file = path.join(stack.dataDir, 'rows.json');
      fs.writeFileSync(file, JSON.stringify({ table: 'jobs', rows: [{ state: 'stuck', job_id: 'j-9' }, { state: 'ok' }] }));
      const env = { ...process.env, SVC_DATA_DIR: stack.dataDir, EVENTSTORE_URL: '', MONGODB_URL: '' };
      const out = await new Promise<{ code: number; stdout: string }>((resolve) =>
        execFile(process.execPath, [CLI_MAIN, 'rows', 'ingest', '--org', 'acme', '--file', file, '--json'], { env }, (error, stdout) =>
          resolve({ code: error ? Number(error.code ?? 1) : 0, stdout }),
        ),
      );
      expect(out.code).toBe(0);
      expect(JSON.parse(out.stdout)).toMatchObject({ table: 'jobs', rowCount: 2, appended: true });
      const [session] = await countReaches('cli-watcher', 1);
      const read = await stack.rpc<{ messages: unknown[] }>(`${AGENTS}/Read`, { session: session.name });
      expect(JSON.stringify(read.body.messages[0])).toContain('j-9');
    });

    it('refuses bad rows with INVALID_ARGUMENT naming the fault, and callers without AGENTS_WRITE', async () => {
      const cases: Array<[unknown, RegExp]> = [
        [{ table: 'orders', rows: Array.from({ length: 1001 }, () => ({ a: 1 })) }, /at most 1000 per request/],
        [{ table: 'orders', rows: [{ a: { nested: true } }] }, /rows\[0\]\.a must be a string, number, boolean or null/],
        [{ table: 'no such table!', rows: [{ a: 1 }] }, /table must be a table name/],
        [{ table: 'orders' }, /rows/],
      ];
      for (const [body, message] of cases) {
        const res = await stack.rpc<{ error: { status: string; message: string } }>(ROWS, body);
        expect(res.status).toBe(400);
        expect(res.body.error.status).toBe('INVALID_ARGUMENT');
        expect(res.body.error.message).toMatch(message);
      }
      expect((await stack.rpc(ROWS, { table: 'orders', rows: [{ a: 1 }] }, BOB)).status).toBe(403);
      expect((await stack.rpc(ROWS, { table: 'orders', rows: [{ a: 1 }] }, ALICE)).status).toBe(200);
    });
  });

  describe('an agent that is off', () => {
    const skipped = async () => {
      const env = { ...process.env, SVC_DATA_DIR: stack.dataDir, EVENTSTORE_URL: '', MONGODB_URL: '' };
      const out = await new Promise<{ code: number; stdout: string }>((resolve) =>
        execFile(process.execPath, [CLI_MAIN, 'events', '--type', 'TriggerOccasionSkipped', '--limit', '1000', '--json'], { env }, (error, stdout) =>
          resolve({ code: error ? Number(error.code ?? 1) : 0, stdout }),
        ),
      );
      if (out.code !== 0) return [];
      return (JSON.parse(out.stdout) as { events: { stream: string; data: { source: string; reason: string; agent: string; occasion: string } }[] }).events;
    };

    it('is not started by cron, post-deploy or row triggers, which record the skip; turned on, it starts again, owing nothing', async () => {
      expect((await stack.rpc(`${AGENTS}/CreateAgent`, { agent_id: 'dormant', agent: { prompt: 'Wake up.', state: 'AGENT_STATE_OFF' } })).status).toBe(200);
      await createTrigger('dormant-cron', 'dormant', { cron: { schedule: '* * * * * *', timezone: 'UTC' } });
      await createTrigger('dormant-deploy', 'dormant', { post_deploy: { repository: 'acme/quiet', environment: 'prod', sha: 'fedcba9', delay: '1s' } });
      await createTrigger('dormant-rows', 'dormant', { row: { table_name: 'alarms', predicate: "level = 'high'", cooldown: '0s' } });
      expect((await stack.rpc(`${DEPLOYMENTS}/CreateDeployment`, { deployment_id: 'quiet-1', deployment: { labels: { repository: 'acme/quiet', environment: 'prod', sha: 'fedcba9' } } })).status).toBe(200);
      expect((await stack.rpc(`${DEPLOYMENTS}/UpdateDeploymentStatus`, { name: 'deployments/quiet-1', status: 'DEPLOYMENT_STATUS_SUCCESS' })).status).toBe(200);
      expect((await stack.rpc(ROWS, { table: 'alarms', rows: [{ level: 'high' }] })).status).toBe(200);

      const events = await eventually(async () => {
        const found = (await skipped()).filter((e) => e.data.agent === 'agents/dormant');
        return new Set(found.map((e) => e.data.source)).size === 3 ? found : undefined;
      }, 20_000);
      expect(events.every((e) => e.data.reason === 'AGENT_STATE_OFF')).toBe(true);
      expect(new Set(events.map((e) => e.stream))).toEqual(new Set(['triggerfire-acme:triggers/dormant-cron', 'triggerfire-acme:triggers/dormant-deploy', 'triggerfire-acme:triggers/dormant-rows']));
      // One skip per occasion, however many ticks came by.
      expect(new Set(events.map((e) => e.data.occasion)).size).toBe(events.length);
      expect(await sessionsOf('dormant')).toEqual([]);

      const on = await stack.rpc<{ agent: { updateTime: string } }>(`${AGENTS}/UpdateAgent`, { agent: { name: 'agents/dormant', state: 'AGENT_STATE_ON' }, update_mask: 'state' });
      expect(on.status).toBe(200);
      const sessions = await countReaches('dormant', 1);
      // Only cron occasions after the skips: a skipped occasion is never fired later.
      const skippedOccasions = new Set((await skipped()).map((e) => e.data.occasion));
      for (const s of sessions) expect(skippedOccasions.has(`cron|${occasionOf(s)}`)).toBe(false);
      await setEnabled('dormant-cron', false);
    });
  });
});
