import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ALICE, BOB, CLI_MAIN, type Credentials, GINA, Stack } from './support/harness';

const S = 'svc.issuenotificationpolicy.v1.IssueNotificationPolicyService';
const NAME = 'issue-notification-policies/default';

interface Policy {
  name: string;
  description?: string;
  connections?: string[];
  prompt?: string;
  state: string;
  createTime: string;
  updateTime: string;
}

describe('issue notification policy (svc.issuenotificationpolicy.v1)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start();
  });
  afterAll(async () => {
    await stack.destroy();
  });

  const get = (as: Credentials = ALICE, body: unknown = {}) => stack.rpc<{ issueNotificationPolicy: Policy }>(`${S}/GetIssueNotificationPolicy`, body, as);
  const update = (body: unknown, as: Credentials = ALICE) => stack.rpc<{ issueNotificationPolicy: Policy }>(`${S}/UpdateIssueNotificationPolicy`, body, as);

  it('every organization holds the default policy, ACTIVE, and Get takes an empty body', async () => {
    for (const as of [ALICE, BOB, GINA]) {
      const res = await get(as);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        issueNotificationPolicy: {
          name: NAME,
          state: 'ISSUE_NOTIFICATION_POLICY_STATE_ACTIVE',
          createTime: expect.stringMatching(/^20\d\d-/),
          updateTime: expect.stringMatching(/^20\d\d-/),
        },
      });
    }
    expect((await get(ALICE, { name: NAME })).status).toBe(200);
    const other = await get(ALICE, { name: 'issue-notification-policies/other' });
    expect(other.status).toBe(404);
    expect((await get(ALICE, { name: 'notes/default' })).status).toBe(400);
  });

  it('Update without a mask changes the provided fields; state is output only', async () => {
    const res = await update({
      issue_notification_policy: {
        name: NAME,
        description: 'Route new issues',
        connections: ['connections/slack', 'connections/pagerduty'],
        prompt: 'Page on-call for checkout issues',
        state: 'ISSUE_NOTIFICATION_POLICY_STATE_PAUSED',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.issueNotificationPolicy).toMatchObject({
      name: NAME,
      description: 'Route new issues',
      connections: ['connections/slack', 'connections/pagerduty'],
      prompt: 'Page on-call for checkout issues',
      state: 'ISSUE_NOTIFICATION_POLICY_STATE_ACTIVE',
    });
    expect(res.body.issueNotificationPolicy.updateTime > res.body.issueNotificationPolicy.createTime).toBe(true);
    expect((await get()).body.issueNotificationPolicy).toEqual(res.body.issueNotificationPolicy);

    const onlyPrompt = await update({ issue_notification_policy: { name: NAME, prompt: 'Be brief' } });
    expect(onlyPrompt.body.issueNotificationPolicy).toMatchObject({ description: 'Route new issues', prompt: 'Be brief' });
  });

  it('Update with a mask touches only the named fields; state in the mask is ignored', async () => {
    const res = await update({
      issue_notification_policy: { name: NAME, description: 'not applied', connections: ['connections/slack'], state: 'X' },
      update_mask: 'connections,prompt,state',
    });
    expect(res.status).toBe(200);
    expect(res.body.issueNotificationPolicy).toMatchObject({ description: 'Route new issues', connections: ['connections/slack'] });
    // prompt was in the mask and left out of the body: cleared (AIP-134).
    expect(res.body.issueNotificationPolicy.prompt).toBeUndefined();
    expect(res.body.issueNotificationPolicy.state).toBe('ISSUE_NOTIFICATION_POLICY_STATE_ACTIVE');
    const unknown = await update({ issue_notification_policy: { name: NAME }, update_mask: 'colour' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringMatching(/colour/) } });
  });

  it('connections must name existing connections of the caller’s organization, each once', async () => {
    const before = (await get()).body.issueNotificationPolicy;
    const cases: Array<[unknown, RegExp]> = [
      [['connections/nope'], /'connections\/nope', which does not exist/],
      [['connections/ledger'], /'connections\/ledger', which does not exist/],
      [['slack'], /connections\[0\] must look like 'connections\/\{connection_id\}'/],
      [['connections/slack', 'connections/slack'], /listed twice/],
      ['connections/slack', /connections/],
      [[42], /connections/],
    ];
    for (const [connections, message] of cases) {
      const res = await update({ issue_notification_policy: { name: NAME, connections } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringMatching(message) } });
    }
    expect((await get()).body.issueNotificationPolicy).toEqual(before);
    expect((await update({ issue_notification_policy: { connections: [] } })).status).toBe(400);
    expect((await update({ update_mask: 'prompt' })).status).toBe(400);
  });

  it('Update needs KNOWLEDGE_WRITE: bob (no roles) gets 403 and changes nothing', async () => {
    const before = (await get(BOB)).body.issueNotificationPolicy;
    const res = await update({ issue_notification_policy: { name: NAME, prompt: 'bob was here' } }, BOB);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: { status: 'PERMISSION_DENIED', message: expect.stringMatching(/KNOWLEDGE_WRITE/) } });
    expect((await get(BOB)).body.issueNotificationPolicy).toEqual(before);
  });

  it('tenant isolation: globex edits its own policy and never sees acme’s', async () => {
    const acme = (await get()).body.issueNotificationPolicy;
    const res = await update({ issue_notification_policy: { name: NAME, connections: ['connections/ledger'], prompt: 'globex only' } }, GINA);
    expect(res.status).toBe(200);
    expect(res.body.issueNotificationPolicy).toMatchObject({ connections: ['connections/ledger'], prompt: 'globex only' });
    expect((await get()).body.issueNotificationPolicy).toEqual(acme);
    const slack = await update({ issue_notification_policy: { name: NAME, connections: ['connections/slack'] } }, GINA);
    expect(slack.status).toBe(400);
  });

  it('Create, Delete and List are not methods of the service', async () => {
    for (const method of ['CreateIssueNotificationPolicy', 'DeleteIssueNotificationPolicy', 'ListIssueNotificationPolicies']) {
      const res = await stack.rpc(`${S}/${method}`, { name: NAME });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: { status: 'NOT_FOUND' } });
    }
    expect((await get()).status).toBe(200);
  });

  it('re-applying the configuration (CLI config apply, then a restart) keeps the organization’s edits', async () => {
    const edited = (await update({ issue_notification_policy: { name: NAME, description: 'kept', prompt: 'kept prompt' } })).body
      .issueNotificationPolicy;
    const applied = await new Promise<string>((resolve, reject) => {
      const env = { ...process.env, SVC_DATA_DIR: stack.dataDir, EVENTSTORE_URL: '', MONGODB_URL: '' };
      execFile(process.execPath, [CLI_MAIN, 'config', 'apply', path.join(stack.dataDir, 'svc-config.yaml'), '--json'], { env }, (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      );
    });
    expect(JSON.parse(applied)).toMatchObject({ changes: 0 });
    expect((await get()).body.issueNotificationPolicy).toEqual(edited);

    await stack.stop();
    stack = await Stack.start({ dataDir: stack.dataDir });
    expect((await get()).body.issueNotificationPolicy).toEqual(edited);
  });
});

describe('issue notification policy in the demo organization (no SVC_CONFIG)', () => {
  it('the demo organization gets the default policy too', async () => {
    const stack = await Stack.start({ config: null });
    try {
      const demo = JSON.parse(fs.readFileSync(path.join(stack.dataDir, 'demo-credentials.json'), 'utf8')) as { username: string; password: string };
      const res = await stack.rpc<{ issueNotificationPolicy: Policy }>(`${S}/GetIssueNotificationPolicy`, {}, demo);
      expect(res.status).toBe(200);
      expect(res.body.issueNotificationPolicy).toMatchObject({ name: NAME, state: 'ISSUE_NOTIFICATION_POLICY_STATE_ACTIVE' });
    } finally {
      await stack.destroy();
    }
  });
});
