/**
 * What every code host adapter must do (codehost.port.ts), on one history built with real git:
 *
 *   acme/app   main:    c1 ── c2 ── c3 (skills/triage/SKILL.md, skills/rollback/SKILL.md, README.md, src/config.ts)
 *                               └── f1          feature (branched at c2)
 *   acme/lib   main:    l1
 *   bulk/r000 … bulk/r119 (empty bare repositories, for paging past one host page)
 *   pull requests of acme/app: #1 feature into main (open, by ada), #2 landed as c3 (closed, merged)
 */
import type { CodeHost } from '@svc/infrastructure/integrations/codehost/codehost.port';
import { GitFixture, type GitRepo } from '../support/git-fixture';

export interface History {
  fixture: GitFixture;
  app: GitRepo;
  c1: string;
  c2: string;
  c3: string;
  f1: string;
}

export const BULK = 120;

export async function buildHistory(): Promise<History> {
  const fixture = new GitFixture();
  const app = fixture.repo('acme/app');
  const c1 = app.commit('first', { 'README.md': '# app\n' });
  const c2 = app.commit('second: add the service', { 'src/main.ts': 'export {};\n' });
  app.branch('feature');
  const c3 = app.commit('third: skills', {
    'skills/triage/SKILL.md': '---\nname: triage\ndescription: Sort incoming alerts\n---\nLook at the alert first.\n',
    'skills/rollback/SKILL.md': '---\nname: rollback\ndescription: Roll a release back\n---\nFind the previous release.\n',
    'README.md': `# app\n${'x'.repeat(5000)}\n`,
    'src/config.ts': 'const Timeout = 30;\nexport const TIMEOUT_MS = Timeout * 1000; // -e option\n',
  });
  app.checkout('feature');
  const f1 = app.commit('feature work', { 'feature.txt': 'on the side, timeout\n' });
  app.checkout('main');
  fixture.repo('acme/lib').commit('lib');
  for (let i = 0; i < BULK; i++) fixture.bare(`bulk/r${String(i).padStart(3, '0')}`);
  await app.openPull({ title: 'Feature work', body: 'Fixes: issues/disk-full\n', head: 'feature', author: { login: 'ada', id: '583231' } });
  const landed = await app.openPull({ title: 'Skills', head: 'main', author: { login: 'bob', id: '17' } });
  await app.mergePull(landed, c3);
  return { fixture, app, c1, c2, c3, f1 };
}

export function describeCodeHostContract(name: string, setup: (history: History) => Promise<{ host: CodeHost; close: () => Promise<void> }>): void {
  describe(`code host contract: ${name}`, () => {
    let history: History;
    let host: CodeHost;
    let close: () => Promise<void>;

    beforeAll(async () => {
      history = await buildHistory();
      ({ host, close } = await setup(history));
    });
    afterAll(async () => {
      await close();
      history.fixture.remove();
    });

    it('lists repositories by full name, in pages that together hold each exactly once', async () => {
      const seen: string[] = [];
      let offset: number | null = 0;
      let pages = 0;
      while (offset !== null) {
        const slice = await host.listRepositories(offset, 50);
        expect(slice.items.length).toBeLessThanOrEqual(50);
        seen.push(...slice.items.map((r) => r.fullName));
        offset = slice.next;
        pages++;
      }
      expect(pages).toBe(3);
      expect(seen).toHaveLength(BULK + 2);
      expect(seen.slice(0, 2)).toEqual(['acme/app', 'acme/lib']);
      expect([...seen].sort()).toEqual(seen);
      expect(new Set(seen).size).toBe(seen.length);
    });

    it('pages across the host page boundary without a gap or a repeat', async () => {
      const a = await host.listRepositories(90, 20);
      const b = await host.listRepositories(110, 20);
      expect(a.items.map((r) => r.fullName)).toEqual(Array.from({ length: 20 }, (_, i) => `bulk/r${String(88 + i).padStart(3, '0')}`));
      expect(a.next).toBe(110);
      expect(b.items).toHaveLength(12);
      expect(b.next).toBeNull();
    });

    it('describes a repository with its default branch', async () => {
      expect(await host.getRepository('acme/app')).toEqual({ fullName: 'acme/app', defaultBranch: 'main', private: expect.any(Boolean) });
      await expect(host.getRepository('acme/nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(host.getRepository('../etc')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    });

    it('lists branches in pages', async () => {
      expect(await host.listBranches('acme/app', 0, 100)).toEqual({ items: ['feature', 'main'], next: null });
      expect(await host.listBranches('acme/app', 0, 1)).toEqual({ items: ['feature'], next: 1 });
      await expect(host.listBranches('acme/nope', 0, 10)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });

    it('resolves branches and shas to commits, and answers null for a ref naming nothing', async () => {
      expect(await host.resolveRef('acme/app', 'main')).toBe(history.c3);
      expect(await host.resolveRef('acme/app', history.c1.slice(0, 12))).toBe(history.c1);
      expect(await host.resolveRef('acme/app', 'no-such-branch')).toBeNull();
      await expect(host.resolveRef('acme/app', '--upload-pack=evil')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    });

    it('answers ancestry: a landed commit is an ancestor of the branch head, a side branch is not', async () => {
      const { c1, c2, c3, f1 } = history;
      expect(await host.isAncestor('acme/app', c1, c3)).toBe(true);
      expect(await host.isAncestor('acme/app', c3, c3)).toBe(true);
      expect(await host.isAncestor('acme/app', c2, 'feature')).toBe(true);
      expect(await host.isAncestor('acme/app', c3, c1)).toBe(false);
      expect(await host.isAncestor('acme/app', f1, 'main')).toBe(false);
      expect(await host.isAncestor('acme/app', 'f'.repeat(40), 'main')).toBe(false);
    });

    it('lists the commits of a range newest first, bounded', async () => {
      const { c1, c2, c3 } = history;
      const commits = await host.commitsBetween('acme/app', c1, c3, 10);
      expect(commits.map((c) => c.sha)).toEqual([c3, c2]);
      expect(commits[0]).toMatchObject({ subject: 'third: skills', author: 'Ada' });
      expect(Number.isNaN(Date.parse(commits[0].time))).toBe(false);
      expect((await host.commitsBetween('acme/app', c1, c3, 1)).map((c) => c.sha)).toEqual([c3]);
    });

    it('lists a directory and reads files at a ref, cut at the byte cap', async () => {
      expect(await host.listDirectory('acme/app', 'main', 'skills')).toEqual([
        { name: 'rollback', path: 'skills/rollback', type: 'dir' },
        { name: 'triage', path: 'skills/triage', type: 'dir' },
      ]);
      await expect(host.listDirectory('acme/app', history.c1, 'skills')).rejects.toMatchObject({ code: 'NOT_FOUND' });
      const skill = await host.readFile('acme/app', 'main', 'skills/triage/SKILL.md', 10_000);
      expect(skill).toEqual({ text: expect.stringContaining('description: Sort incoming alerts'), truncated: false });
      expect(await host.readFile('acme/app', 'main', 'README.md', 100)).toEqual({ text: `# app\n${'x'.repeat(94)}`, truncated: true });
      expect(await host.readFile('acme/app', history.c1, 'skills/triage/SKILL.md', 100)).toBeNull();
      expect(await host.readFile('acme/app', 'main', 'skills', 100)).toBeNull();
      await expect(host.readFile('acme/app', 'main', '../../etc/passwd', 100)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    });

    it('lists the commits of a ref newest first, bounded; a ref naming nothing is NOT_FOUND', async () => {
      const { c1, c2, c3, f1 } = history;
      expect((await host.listCommits('acme/app', 'main', 10)).map((c) => c.sha)).toEqual([c3, c2, c1]);
      expect((await host.listCommits('acme/app', 'feature', 2)).map((c) => c.sha)).toEqual([f1, c2]);
      const [newest] = await host.listCommits('acme/app', c2, 1);
      expect(newest).toMatchObject({ sha: c2, subject: 'second: add the service', author: 'Ada' });
      await expect(host.listCommits('acme/app', 'no-such-branch', 5)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(host.listCommits('acme/nope', 'main', 5)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });

    it('searches the default branch for a fixed string, case-insensitively, bounded', async () => {
      const found = await host.searchCode('acme/app', 'timeout', { maxMatches: 10 });
      // feature.txt also says "timeout", on a branch that is not the default: not searched.
      expect(found.truncated).toBe(false);
      expect(found.matches.map((m) => m.path)).toEqual(['src/config.ts', 'src/config.ts']);
      expect(found.matches.map((m) => m.text).join('\n')).toContain('const Timeout = 30;');
      for (const m of found.matches) expect(m.line === null || Number.isInteger(m.line)).toBe(true);
      const one = await host.searchCode('acme/app', 'description', { maxMatches: 1 });
      expect(one).toMatchObject({ matches: [{ path: expect.stringMatching(/^skills\//) }], truncated: true });
    });

    it('takes the query as text, never as a pattern or an option; a path narrows it', async () => {
      expect((await host.searchCode('acme/app', '-e option', { maxMatches: 5 })).matches).toEqual([expect.objectContaining({ path: 'src/config.ts' })]);
      expect((await host.searchCode('acme/app', 'Timeout * 1000', { maxMatches: 5 })).matches).toHaveLength(1);
      expect((await host.searchCode('acme/app', 'x.*y', { maxMatches: 5 })).matches).toEqual([]);
      const underSkills = await host.searchCode('acme/app', 'description', { maxMatches: 10, path: 'skills/triage' });
      expect(underSkills.matches.map((m) => m.path)).toEqual(['skills/triage/SKILL.md']);
      await expect(host.searchCode('acme/app', '', { maxMatches: 5 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      await expect(host.searchCode('acme/app', 'a\nb', { maxMatches: 5 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      await expect(host.searchCode('acme/app', 'x', { maxMatches: 5, path: '../x' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      await expect(host.searchCode('acme/nope', 'x', { maxMatches: 5 })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });

    it('reads a pull request: title, body, head, author; no merge commit until it lands', async () => {
      const open = await host.getPullRequest('acme/app', 1);
      expect(open).toEqual({
        number: 1,
        url: expect.stringMatching(/acme\/app\/pull\/1$/),
        title: 'Feature work',
        body: 'Fixes: issues/disk-full\n',
        state: 'open',
        merged: false,
        headSha: history.f1,
        mergeSha: null,
        authorLogin: 'ada',
        authorId: '583231',
      });
      expect(await host.getPullRequest('acme/app', 2)).toMatchObject({ number: 2, state: 'closed', merged: true, mergeSha: history.c3, authorLogin: 'bob', authorId: '17', body: '' });
      await expect(host.getPullRequest('acme/app', 99)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(host.getPullRequest('acme/nope', 1)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(host.getPullRequest('acme/app', 0)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    });

    it('posts a comment on a pull request and edits it in place', async () => {
      const posted = await host.postComment('acme/app', 1, 'Monitoring plan: in progress');
      expect(posted).toEqual({ id: expect.stringMatching(/^[0-9]+$/), url: expect.stringMatching(/acme\/app\/pull\/1#issuecomment-[0-9]+$/), body: 'Monitoring plan: in progress' });
      const edited = await host.editComment('acme/app', posted.id, 'Monitoring plan: published');
      expect(edited).toEqual({ ...posted, body: 'Monitoring plan: published' });
      const bodies = (await history.app.comments('acme/app', 1)).map((c) => c.body);
      expect(bodies).toContain('Monitoring plan: published');
      expect(bodies).not.toContain('Monitoring plan: in progress');
      await expect(host.postComment('acme/app', 99, 'x')).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(host.editComment('acme/app', '999999', 'x')).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(host.editComment('acme/app', '../1', 'x')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      await expect(host.postComment('acme/app', 1, '')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    });
  });
}
