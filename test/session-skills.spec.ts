/**
 * What a session sees on /run/skills (libs/infrastructure/src/integrations/codehost/session-skills.ts),
 * over a real SQLite read store and real git repositories: built-ins first, every enabled undeleted
 * bundle of the organization, best effort, cached briefly by the bundle's position.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SecretBox } from '@svc/infrastructure/config/secrets';
import { SessionSkills } from '@svc/infrastructure/integrations/codehost/session-skills';
import { createReadStore } from '@svc/infrastructure/read-store';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { GitFixture, type GitRepo } from './support/git-fixture';

const skillFile = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\nSteps for ${name}.\n`;

describe('SessionSkills', () => {
  const fixture = new GitFixture();
  let dataDir: string;
  let reads: ReadStore;
  let ops: GitRepo;
  let more: GitRepo;
  let pos = 0;
  let clock = 1_000_000;

  const put = async (collection: string, org: string, name: string, fields: Record<string, unknown>) => {
    pos++;
    await reads.commit({
      checkpoint: 'test-session-skills',
      position: { commit: BigInt(pos), prepare: BigInt(pos) },
      ops: [{ op: 'update', collection, id: `${org}|${name}`, pos, update: { $set: { name, _org: org, ...fields } }, upsert: true }],
    });
  };
  const bundle = (org: string, id: string, fields: Record<string, unknown>) =>
    put('skills-bundles', org, `skills-bundles/${id}`, { connection: 'connections/git', repository: 'acme/ops', directory: 'skills', branch: '', enabled: true, ...fields });

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-session-skills-'));
    reads = await createReadStore({ SVC_DATA_DIR: dataDir });
    ops = fixture.repo('acme/ops');
    ops.commit('skills', {
      'skills/db-check/SKILL.md': skillFile('db-check', 'Check the database first'),
      'skills/triage/SKILL.md': skillFile('triage', 'Shadowed by the built-in triage'),
    });
    more = fixture.repo('acme/more');
    more.commit('more', { 'skills/db-check/SKILL.md': skillFile('db-check', 'A second db-check'), 'skills/cache/SKILL.md': skillFile('cache', 'Flush the cache') });
    for (const org of ['acme', 'globex']) {
      await put('connections', org, 'connections/git', { connectionType: 'CONNECTION_TYPE_CODEHOST', connectionDetails: { codehost: { provider: 'local-git', root: fixture.root } } });
    }
  });
  afterAll(async () => {
    await reads.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fixture.remove();
  });

  const library = (cacheMs = 30_000) => new SessionSkills({ reads, secrets: SecretBox.fromEnvironment(dataDir), cacheMs, now: () => clock });

  it('offers the built-ins, then each enabled bundle of the organization in name order; a clash keeps the first', async () => {
    await bundle('acme', 'a-ops', {});
    await bundle('acme', 'b-more', { repository: 'acme/more' });
    await bundle('acme', 'c-off', { repository: 'acme/more', enabled: false });
    await bundle('acme', 'd-gone', { repository: 'acme/more', deleteTime: '2024-01-01T00:00:00Z' });
    await bundle('globex', 'theirs', { repository: 'acme/more' });
    const seen = await library().forOrganization('acme');
    expect(seen.skills.map((s) => [s.name, s.source])).toEqual([
      ['triage', 'builtin'],
      ['rollback', 'builtin'],
      ['db-check', 'skills-bundles/a-ops'],
      ['cache', 'skills-bundles/b-more'],
    ]);
    expect(seen.skills[2]).toMatchObject({ description: 'Check the database first', body: skillFile('db-check', 'Check the database first') });
    expect(seen.unavailable).toEqual([]);
  });

  it('reports a bundle that cannot be read by name and serves the others', async () => {
    await bundle('acme', 'e-broken', { repository: 'acme/missing' });
    await bundle('acme', 'f-nowhere', { connection: 'connections/absent' });
    const seen = await library().forOrganization('acme');
    expect(seen.skills.map((s) => s.name)).toEqual(['triage', 'rollback', 'db-check', 'cache']);
    expect(seen.unavailable).toEqual([
      { bundle: 'skills-bundles/e-broken', message: expect.stringContaining('acme/missing') },
      { bundle: 'skills-bundles/f-nowhere', message: "its connection 'connections/absent' is not configured" },
    ]);
  });

  it('reuses a bundle\'s skills within the cache time, reads again after it, and at once when the bundle changes', async () => {
    const skills = library(10_000);
    expect((await skills.forOrganization('globex')).skills.map((s) => s.name)).toEqual(['triage', 'rollback', 'cache', 'db-check']);
    more.commit('new skill', { 'skills/warmup/SKILL.md': skillFile('warmup', 'Warm up') });
    clock += 5_000;
    expect((await skills.forOrganization('globex')).skills.map((s) => s.name)).not.toContain('warmup');
    clock += 6_000;
    expect((await skills.forOrganization('globex')).skills.map((s) => s.name)).toContain('warmup');
    // An update of the bundle (a new position) is read at once, cache or not.
    await bundle('globex', 'theirs', { repository: 'acme/ops' });
    expect((await skills.forOrganization('globex')).skills.map((s) => s.name)).toEqual(['triage', 'rollback', 'db-check']);
    await bundle('globex', 'theirs', { repository: 'acme/ops', enabled: false });
    expect((await skills.forOrganization('globex')).skills.map((s) => s.source)).toEqual(['builtin', 'builtin']);
  });
});
