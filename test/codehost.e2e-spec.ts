/**
 * ListRepositories and ListRepositoryBranches (spec part 1, "Integration helpers") on a local-git
 * code-host connection whose repositories the test makes with real git.
 */
import { GitFixture } from './support/git-fixture';
import { BOB, GINA, Stack, TEST_CONFIG } from './support/harness';

interface Repositories {
  repositories: Array<{ fullName: string; defaultBranch: string; private: boolean }>;
  nextPageToken: string;
}
interface Branches {
  branches: string[];
  defaultBranch: string;
  nextPageToken: string;
}

const REPOS = '/v1/codehost-connections:listRepositories';
const BRANCHES = '/v1/codehost-connections:listBranches';

describe('code host helpers (ListRepositories, ListRepositoryBranches) on local git', () => {
  let stack: Stack;
  const fixture = new GitFixture();

  beforeAll(async () => {
    const app = fixture.repo('acme/app');
    app.commit('first', { 'README.md': '# app\n' });
    for (const b of ['release-1', 'release-2', 'hotfix']) app.branch(b);
    fixture.repo('acme/lib').commit('lib');
    for (let i = 0; i < 105; i++) fixture.bare(`bulk/r${String(i).padStart(3, '0')}`);
    const config = TEST_CONFIG.replace('root: ./repos', `root: "${fixture.root}"`).replace(
      '      - id: pagerduty\n',
      '      - id: broken-host\n        type: CONNECTION_TYPE_CODEHOST\n        details: {codehost: {provider: local-git, root: "/nonexistent/svc-repos"}}\n      - id: pagerduty\n',
    );
    stack = await Stack.start({ config });
  });
  afterAll(async () => {
    await stack?.destroy();
    fixture.remove();
  });

  it('lists repositories 100 to a page by default, with a token to the rest, to any member', async () => {
    const first = await stack.request<Repositories>('POST', REPOS, { body: { connection_name: 'connections/github' }, as: BOB });
    expect(first.status).toBe(200);
    expect(first.body.repositories).toHaveLength(100);
    expect(first.body.repositories[0]).toEqual({ fullName: 'acme/app', defaultBranch: 'main', private: true });
    expect(first.body.nextPageToken).not.toBe('');
    const second = await stack.request<Repositories>('POST', REPOS, { body: { connection_name: 'connections/github', page_token: first.body.nextPageToken }, as: BOB });
    expect(second.body.repositories.map((r) => r.fullName)).toEqual(['bulk/r098', 'bulk/r099', 'bulk/r100', 'bulk/r101', 'bulk/r102', 'bulk/r103', 'bulk/r104']);
    expect(second.body.nextPageToken).toBe('');
  });

  it('caps page_size at 100 and treats 0 or less as the default', async () => {
    const big = await stack.request<Repositories>('POST', REPOS, { body: { connection_name: 'connections/github', page_size: 500 } });
    expect(big.body.repositories).toHaveLength(100);
    const zero = await stack.request<Repositories>('POST', REPOS, { body: { connection_name: 'connections/github', page_size: -3 } });
    expect(zero.body.repositories).toHaveLength(100);
    const two = await stack.request<Repositories>('POST', REPOS, { body: { connection_name: 'connections/github', page_size: 2 } });
    expect(two.body.repositories.map((r) => r.fullName)).toEqual(['acme/app', 'acme/lib']);
  });

  it('lists branches with the default branch on every page', async () => {
    const first = await stack.request<Branches>('POST', BRANCHES, { body: { connection_name: 'connections/github', repository: 'acme/app', page_size: 3 } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ branches: ['hotfix', 'main', 'release-1'], defaultBranch: 'main', nextPageToken: expect.any(String) });
    const second = await stack.request<Branches>('POST', BRANCHES, {
      body: { connection_name: 'connections/github', repository: 'acme/app', page_size: 3, page_token: first.body.nextPageToken },
    });
    expect(second.body).toEqual({ branches: ['release-2'], defaultBranch: 'main', nextPageToken: '' });
  });

  it('refuses a page token issued for another repository', async () => {
    const first = await stack.request<Branches>('POST', BRANCHES, { body: { connection_name: 'connections/github', repository: 'acme/app', page_size: 1 } });
    const other = await stack.request('POST', BRANCHES, {
      body: { connection_name: 'connections/github', repository: 'acme/lib', page_token: first.body.nextPageToken },
    });
    expect(other.status).toBe(400);
  });

  it('answers NOT_FOUND for an unknown repository, INVALID_ARGUMENT for a bad name or a connection of another type', async () => {
    expect((await stack.request('POST', BRANCHES, { body: { connection_name: 'connections/github', repository: 'acme/nope' } })).status).toBe(404);
    const bad = await stack.request('POST', BRANCHES, { body: { connection_name: 'connections/github', repository: '../../etc' } });
    expect(bad.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining("must be 'owner/repo'") } });
    const sql = await stack.request('POST', REPOS, { body: { connection_name: 'connections/warehouse' } });
    expect(sql.status).toBe(400);
    expect(sql.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining('not a code-host connection') } });
    expect((await stack.request('POST', REPOS, { body: {} })).status).toBe(400);
  });

  it('keeps tenants apart: another organization cannot list through acme\'s connection', async () => {
    expect((await stack.request('POST', REPOS, { body: { connection_name: 'connections/github' }, as: GINA })).status).toBe(404);
  });

  it('a root that is missing lists nothing rather than failing', async () => {
    const res = await stack.request<Repositories>('POST', REPOS, { body: { connection_name: 'connections/broken-host' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ repositories: [], nextPageToken: '' });
  });
});
