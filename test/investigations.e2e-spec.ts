import { ALICE, BOB, eventually, GINA, Stack } from './support/harness';
import { sha256Of, upload } from './support/uploads';

const I = 'svc.investigations.v1.InvestigationService';
const A = 'svc.nxagent.v2.AgentService';
const seed = (content: string) => ({ user: { text: { content, role: 'USER' } } });

interface Investigation {
  name: string;
  displayName?: string;
  description?: string;
  status: string;
  createdBy: string;
  session: string;
  createTime: string;
  updateTime: string;
}

describe('investigations', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start();
  });
  afterAll(() => stack.destroy());

  const create = (body: Record<string, unknown>, as = ALICE) => stack.rpc<{ investigation: Investigation }>(`${I}/CreateInvestigation`, body, as);

  it('starts EXECUTING with a server ID and a session of the investigator, and WAITING once the built-in runtime answered', async () => {
    const res = await create({ investigation: { display_name: 'Checkout errors', description: 'for the postmortem', status: 'INVESTIGATION_STATUS_WAITING' }, initial_activities: [seed('Why does checkout fail?')] });
    expect(res.status).toBe(200);
    const inv = res.body.investigation;
    expect(inv).toMatchObject({ displayName: 'Checkout errors', description: 'for the postmortem', status: 'INVESTIGATION_STATUS_EXECUTING', createdBy: 'users/alice' });
    expect(inv.name).toMatch(/^investigations\/[0-9a-f-]{36}$/);
    expect(inv.session).toBe(`agents/svc-investigator/sessions/${inv.name.split('/')[1]}`);
    const waiting = await eventually(async () => {
      const got = await stack.rpc<{ investigation: Investigation }>(`${I}/GetInvestigation`, { name: inv.name });
      return got.body.investigation.status === 'INVESTIGATION_STATUS_WAITING' ? got.body.investigation : undefined;
    }, 20_000);
    expect(waiting.updateTime >= inv.updateTime).toBe(true);
    const read = await stack.rpc<{ messages: Array<Record<string, unknown>>; status: string }>(`${A}/Read`, { session: inv.session });
    expect(read.body.messages[0]).toEqual({ '@type': 'type.googleapis.com/svc.nxagent.v1.Activity', user: { text: { text: 'Why does checkout fail?' } } });
    expect(read.body.messages.at(-1)).toMatchObject({ assistant: { text: { text: expect.stringContaining('Why does checkout fail?') } } });
    const agent = await stack.rpc<{ agent: { name: string } }>(`${A}/GetAgent`, { name: 'agents/svc-investigator' });
    expect(agent.body.agent.name).toBe('agents/svc-investigator');
  });

  it('generates a title from the first line of the seed when display_name is omitted', async () => {
    const short = await create({ investigation: {}, initial_activities: [seed('\n  Disk   full on db-1  \nmore detail here')] });
    expect(short.body.investigation.displayName).toBe('Disk full on db-1');
    const long = 'word '.repeat(40);
    const cut = await create({ investigation: {}, initial_activities: [seed(long)] });
    expect(cut.body.investigation.displayName!.length).toBeLessThanOrEqual(80);
    expect(cut.body.investigation.displayName).toMatch(/^word( word)+…$/);
    const none = await create({ investigation: { description: 'no seed' } });
    expect(none.body.investigation.displayName).toBeUndefined();
    expect(none.body.investigation.status).toBe('INVESTIGATION_STATUS_WAITING');
  });

  it('refuses a malformed seed naming the item', async () => {
    const res = await create({ investigation: {}, initial_activities: [seed('ok'), { user: { text: { content: 'x', role: 'ASSISTANT' } } }] });
    expect(res.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining('initial_activities[1].user.text.role') } });
  });

  it('imports uploaded artifacts into the session; GetArtifact answers them; content never uploaded is FAILED_PRECONDITION and creates nothing', async () => {
    const log = Buffer.from('ERROR checkout timeout\n');
    expect((await upload(stack.baseUrl, sha256Of(log), log, { as: ALICE })).status).toBe(200);
    const before = await stack.rpc<{ investigations: Investigation[] }>(`${I}/ListInvestigations`, { page_size: 1000 });
    const missing = sha256Of('never uploaded');
    const refused = await create({
      investigation: { display_name: 'with a missing artifact' },
      initial_activities: [seed('look')],
      artifacts: [{ name: 'app.log', sha256: sha256Of(log), content_type: 'text/plain' }, { name: 'core', sha256: missing, content_type: 'application/octet-stream' }],
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: { status: 'FAILED_PRECONDITION', message: expect.stringContaining(missing) } });
    const after = await stack.rpc<{ investigations: Investigation[] }>(`${I}/ListInvestigations`, { page_size: 1000 });
    expect(after.body.investigations.length).toBe(before.body.investigations.length);

    const res = await create({
      investigation: { display_name: 'with logs' },
      initial_activities: [seed('read app.log')],
      artifacts: [{ name: 'logs/app.log', sha256: sha256Of(log), content_type: 'text/plain', content_encoding: '' }],
    });
    expect(res.status).toBe(200);
    const session = res.body.investigation.session;
    const got = await stack.rpc<{ artifact: Record<string, unknown> }>(`${A}/GetArtifact`, { session, name: 'logs/app.log' });
    expect(got.body.artifact).toMatchObject({ name: 'logs/app.log', session, sha256: sha256Of(log), contentType: 'text/plain', sizeBytes: String(log.length), content: log.toString('base64') });
    const download = await fetch(`${stack.baseUrl}${got.body.artifact.downloadUri as string}`, { headers: { authorization: `Basic ${Buffer.from('alice-key:alice-secret').toString('base64')}` } });
    expect([download.status, await download.text()]).toEqual([200, log.toString()]);
    expect((await stack.rpc(`${A}/GetArtifact`, { session, name: 'other.log' })).body).toMatchObject({ error: { status: 'NOT_FOUND' } });
    // Another organization sees neither the artifact nor the investigation.
    expect((await stack.rpc(`${A}/GetArtifact`, { session, name: 'logs/app.log' }, GINA)).body).toMatchObject({ error: { status: 'NOT_FOUND' } });
    expect((await stack.rpc(`${I}/GetInvestigation`, { name: res.body.investigation.name }, GINA)).body).toMatchObject({ error: { status: 'NOT_FOUND' } });
  });

  it('refuses bad artifact references by field', async () => {
    const res = await create({ investigation: {}, artifacts: [{ name: '../x', sha256: sha256Of('a'), content_type: 'text/plain' }] });
    expect(res.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining('artifacts[0].name') } });
    const dup = await create({ investigation: {}, artifacts: [{ name: 'a', sha256: sha256Of('a'), content_type: 'text/plain' }, { name: 'a', sha256: sha256Of('a'), content_type: 'text/plain' }] });
    expect(dup.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining('named twice') } });
  });

  it('lists with a status filter and orders by display_name, create_time (default desc) and update_time', async () => {
    const names: string[] = [];
    for (const title of ['b-second', 'a-first', 'c-third']) names.push((await create({ investigation: { display_name: title } }, GINA)).body.investigation.name);
    const list = (body: Record<string, unknown>) => stack.rpc<{ investigations: Investigation[] }>(`${I}/ListInvestigations`, body, GINA);
    expect((await list({})).body.investigations.map((i) => i.name)).toEqual([...names].reverse());
    expect((await list({ order_by: 'display_name' })).body.investigations.map((i) => i.displayName)).toEqual(['a-first', 'b-second', 'c-third']);
    await stack.rpc(`${I}/UpdateInvestigation`, { investigation: { name: names[0], status: 'INVESTIGATION_STATUS_EXECUTING' }, update_mask: 'status' }, GINA);
    expect((await list({ filter: 'status = INVESTIGATION_STATUS_EXECUTING' })).body.investigations.map((i) => i.name)).toEqual([names[0]]);
    expect((await list({ order_by: 'update_time desc' })).body.investigations[0].name).toBe(names[0]);
    expect((await list({ filter: 'colour = "red"' })).body).toMatchObject({ error: { status: 'INVALID_ARGUMENT' } });
  });

  it('updates display_name, description and status through the mask only', async () => {
    const inv = (await create({ investigation: { display_name: 'before', description: 'd' } })).body.investigation;
    const res = await stack.rpc<{ investigation: Investigation }>(`${I}/UpdateInvestigation`, {
      investigation: { name: inv.name, display_name: 'after', description: 'ignored', status: 'INVESTIGATION_STATUS_EXECUTING' },
      update_mask: 'display_name,status',
    });
    expect(res.body.investigation).toMatchObject({ displayName: 'after', description: 'd', status: 'INVESTIGATION_STATUS_EXECUTING', session: inv.session });
    const bad = await stack.rpc(`${I}/UpdateInvestigation`, { investigation: { name: inv.name, status: 'DONE' }, update_mask: 'status' });
    expect(bad.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT' } });
    expect((await stack.rpc(`${I}/DeleteInvestigation`, { name: inv.name })).status).toBe(404);
  });

  it('needs INVESTIGATIONS_WRITE to create and update; reading needs membership only', async () => {
    const denied = await create({ investigation: { display_name: 'x' } }, BOB);
    expect(denied.body).toMatchObject({ error: { status: 'PERMISSION_DENIED', message: expect.stringContaining('INVESTIGATIONS_WRITE') } });
    const inv = (await create({ investigation: { display_name: 'mine' } })).body.investigation;
    expect((await stack.rpc(`${I}/UpdateInvestigation`, { investigation: { name: inv.name, display_name: 'x' } }, BOB)).status).toBe(403);
    expect((await stack.rpc(`${I}/GetInvestigation`, { name: inv.name }, BOB)).status).toBe(200);
  });
});
