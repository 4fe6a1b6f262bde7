/**
 * Skills bundles (spec part 1, "Skills bundle" and svc.skills_bundles.v1.SkillsBundlesService): CRUD
 * by the kit, and the skills read live from a local-git repository the test makes with real git.
 */
import { GitFixture } from './support/git-fixture';
import { BOB, GINA, Stack, TEST_CONFIG } from './support/harness';

const S = 'svc.skills_bundles.v1.SkillsBundlesService';

interface Skill {
  name: string;
  description: string;
  body: string;
  sourceRef: string;
}

const skillFile = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\nSteps for ${name}.\n`;

describe('skills bundles', () => {
  let stack: Stack;
  const fixture = new GitFixture();

  beforeAll(async () => {
    const repo = fixture.repo('acme/ops');
    repo.commit('skills', {
      'skills/db-check/SKILL.md': skillFile('db-check', 'Check the database first'),
      'skills/triage/SKILL.md': skillFile('triage', 'A repository triage that the built-in one shadows'),
      'skills/notes.txt': 'not a skill',
      'skills/empty-dir/README.md': 'no SKILL.md here',
      'playbooks/restart/SKILL.md': skillFile('restart', 'Restart safely'),
    });
    repo.branch('experimental');
    repo.checkout('experimental');
    repo.commit('experimental skill', { 'skills/canary/SKILL.md': skillFile('canary', 'Watch a canary') });
    repo.checkout('main');
    stack = await Stack.start({ config: TEST_CONFIG.replace('root: ./repos', `root: "${fixture.root}"`) });
  });
  afterAll(async () => {
    await stack?.destroy();
    fixture.remove();
  });

  const create = (id: string, bundle: Record<string, unknown>, as = undefined as typeof BOB | undefined) =>
    stack.rpc<{ skillsBundle: Record<string, unknown> }>(`${S}/CreateSkillsBundle`, { skills_bundle_id: id, skills_bundle: bundle }, as);
  const skills = async (parent: string) => stack.rpc<{ skills: Skill[]; nextPageToken: string }>(`${S}/ListSkillsBundleSkills`, { parent, page_size: 1, filter: 'ignored = 1' }, BOB);

  it('creates a bundle with the spec\'s defaults: directory skills, the default branch, enabled', async () => {
    const res = await create('ops', { display_name: 'Ops', connection: 'connections/github', repository: 'acme/ops' });
    expect(res.status).toBe(200);
    expect(res.body.skillsBundle).toMatchObject({ name: 'skills-bundles/ops', displayName: 'Ops', connection: 'connections/github', repository: 'acme/ops', directory: 'skills', branch: '', enabled: true });
    expect((await stack.rpc(`${S}/GetSkillsBundle`, { name: 'skills-bundles/ops' }, BOB)).body).toEqual(res.body);
  });

  it('refuses a connection that is not a code host, and a malformed repository, before anything is stored', async () => {
    const sql = await create('bad', { connection: 'connections/warehouse', repository: 'acme/ops' });
    expect(sql.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining('not a code-host connection') } });
    const repo = await create('bad', { connection: 'connections/github', repository: 'acme/ops/../../x' });
    expect(repo.status).toBe(400);
    expect((await stack.rpc(`${S}/GetSkillsBundle`, { name: 'skills-bundles/bad' })).status).toBe(404);
  });

  it('needs INTEGRATIONS_WRITE to create; members without it may read', async () => {
    expect((await create('bobs', { connection: 'connections/github', repository: 'acme/ops' }, BOB)).status).toBe(403);
    expect((await stack.rpc(`${S}/ListSkillsBundles`, {}, BOB)).status).toBe(200);
  });

  it('lists the skills of the bundle live, in one page, built-in names winning a clash', async () => {
    const res = await skills('skills-bundles/ops');
    expect(res.status).toBe(200);
    expect(res.body.nextPageToken).toBe('');
    expect(res.body.skills).toEqual([
      { name: 'db-check', description: 'Check the database first', body: skillFile('db-check', 'Check the database first'), sourceRef: expect.stringMatching(/^connections\/github\/acme\/ops@[0-9a-f]{40}:skills\/db-check$/) },
    ]);
  });

  it('reads the bundle\'s branch and directory when set', async () => {
    expect((await create('canary', { connection: 'connections/github', repository: 'acme/ops', branch: 'experimental' })).status).toBe(200);
    expect((await skills('skills-bundles/canary')).body.skills.map((s) => s.name)).toEqual(['canary', 'db-check']);
    expect((await create('playbooks', { connection: 'connections/github', repository: 'acme/ops', directory: 'playbooks' })).status).toBe(200);
    expect((await skills('skills-bundles/playbooks')).body.skills.map((s) => s.name)).toEqual(['restart']);
  });

  it('previews a repository\'s skills without saving anything', async () => {
    const res = await stack.rpc<{ skills: Skill[] }>(`${S}/PreviewSkillsBundleSkills`, { connection: 'connections/github', repository: 'acme/ops', directory: 'playbooks' }, BOB);
    expect(res.status).toBe(200);
    expect(res.body.skills.map((s) => s.name)).toEqual(['restart']);
    const listed = await stack.rpc<{ skillsBundles: unknown[] }>(`${S}/ListSkillsBundles`, {});
    expect(listed.body.skillsBundles).toHaveLength(3);
    const missing = await stack.rpc(`${S}/PreviewSkillsBundleSkills`, { connection: 'connections/github', repository: 'acme/nope' });
    expect(missing.status).toBe(404);
  });

  it('updates with a required mask; a mask of output-only paths only is refused', async () => {
    const update = (mask: string, bundle: Record<string, unknown>) => stack.rpc<{ skillsBundle: Record<string, unknown> }>(`${S}/UpdateSkillsBundle`, { skills_bundle: { name: 'skills-bundles/ops', ...bundle }, update_mask: mask });
    expect((await update('name,create_time', { enabled: false })).status).toBe(400);
    const res = await update('enabled', { enabled: false, display_name: 'ignored' });
    expect(res.status).toBe(200);
    expect(res.body.skillsBundle).toMatchObject({ enabled: false, displayName: 'Ops' });
    expect((await update('connection', { connection: 'connections/metrics' })).body).toMatchObject({ error: { status: 'INVALID_ARGUMENT' } });
  });

  it('stops serving a deleted bundle\'s skills; show_deleted still lists it', async () => {
    expect((await stack.rpc(`${S}/DeleteSkillsBundle`, { name: 'skills-bundles/playbooks' })).status).toBe(200);
    expect((await skills('skills-bundles/playbooks')).body).toEqual({ skills: [], nextPageToken: '' });
    const listed = await stack.rpc<{ skillsBundles: Array<{ name: string }> }>(`${S}/ListSkillsBundles`, { show_deleted: true });
    expect(listed.body.skillsBundles.map((b) => b.name)).toContain('skills-bundles/playbooks');
  });

  it('keeps tenants apart', async () => {
    expect((await stack.rpc(`${S}/GetSkillsBundle`, { name: 'skills-bundles/ops' }, GINA)).status).toBe(404);
    expect((await stack.rpc(`${S}/ListSkillsBundleSkills`, { parent: 'skills-bundles/ops' }, GINA)).status).toBe(404);
  });
});
