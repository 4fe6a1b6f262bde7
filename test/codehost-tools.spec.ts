/**
 * The code host tool adapter's own rules (libs/infrastructure/src/integrations/tools/codehost/codehost.adapter.ts)
 * on a real git repository: arguments checked before the host is asked, lists cut to maxRows and to
 * maxBytes of JSON, a file's text cut to its JSON-escaped size.
 */
import { CodeHostToolAdapter } from '@svc/infrastructure/integrations/tools/codehost/codehost.adapter';
import { DEFAULT_TOOL_LIMITS, type ToolConnection, type ToolLimits } from '@svc/infrastructure/integrations/tools/tool-adapter.port';
import { GitFixture } from './support/git-fixture';

describe('the code host tools', () => {
  const fixture = new GitFixture();
  const adapter = new CodeHostToolAdapter();
  let connection: ToolConnection;
  const run = (tool: string, args: Record<string, unknown>, limits: Partial<ToolLimits> = {}) =>
    adapter.run(tool, args, connection, { limits: { ...DEFAULT_TOOL_LIMITS, ...limits } }).catch((e: unknown) => e);

  beforeAll(() => {
    const files: Record<string, string> = { 'quotes.txt': '"\\"'.repeat(2000) };
    for (let i = 0; i < 40; i++) files[`dir/file-${String(i).padStart(2, '0')}.txt`] = `needle ${i}\n`;
    const repo = fixture.repo('acme/app');
    repo.commit('files', files);
    for (let i = 0; i < 5; i++) repo.commit(`change ${i}`);
    connection = { name: 'connections/git', type: 'CONNECTION_TYPE_CODEHOST', details: { provider: 'local-git', root: fixture.root } };
  });
  afterAll(() => fixture.remove());

  it('checks its arguments before asking the host', async () => {
    expect(await run('TOOL_CODEHOST_READ_FILE', { path: 'x' })).toMatchObject({ code: 'INVALID_ARGUMENT', message: "'repository' must name a repository as owner/repo" });
    expect(await run('TOOL_CODEHOST_READ_FILE', { repository: 'acme/app' })).toMatchObject({ code: 'INVALID_ARGUMENT', message: "'path' is required" });
    expect(await run('TOOL_CODEHOST_SEARCH', { repository: 'acme/app', query: 'x', limit: 0 })).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(await run('TOOL_CODEHOST_SEARCH', { repository: '../etc', query: 'x' })).toMatchObject({ code: 'INVALID_ARGUMENT' });
    const unconfigured = await adapter.run('TOOL_CODEHOST_SEARCH', { repository: 'acme/app', query: 'x' }, { ...connection, details: {} }, { limits: DEFAULT_TOOL_LIMITS }).catch((e: unknown) => e);
    expect(unconfigured).toMatchObject({ code: 'FAILED_PRECONDITION' });
  });

  it('cuts lists to maxRows, then to maxBytes of JSON, and says so', async () => {
    const rows = (await run('TOOL_CODEHOST_LIST_DIRECTORY', { repository: 'acme/app', path: 'dir' }, { maxRows: 7 })) as { entries: unknown[]; truncated?: boolean };
    expect(rows.entries).toHaveLength(7);
    expect(rows.truncated).toBe(true);
    const bytes = (await run('TOOL_CODEHOST_LIST_DIRECTORY', { repository: 'acme/app', path: 'dir' }, { maxBytes: 1000 })) as { entries: unknown[]; truncated?: boolean };
    expect(JSON.stringify(bytes).length).toBeLessThanOrEqual(1000);
    expect(bytes.entries.length).toBeGreaterThan(0);
    expect(bytes.truncated).toBe(true);
    const search = (await run('TOOL_CODEHOST_SEARCH', { repository: 'acme/app', query: 'NEEDLE', limit: 500 })) as { matches: unknown[]; truncated?: boolean };
    expect(search.matches).toHaveLength(40);
    expect(search.truncated).toBeUndefined();
    const commits = (await run('TOOL_CODEHOST_LIST_COMMITS', { repository: 'acme/app', limit: 5 })) as { commits: unknown[]; truncated?: boolean };
    expect(commits).toMatchObject({ ref: 'main', truncated: true });
    expect(commits.commits).toHaveLength(5);
    expect(await run('TOOL_CODEHOST_LIST_COMMITS', { repository: 'acme/app', limit: 6 })).not.toHaveProperty('truncated');
  });

  it("cuts a file to its JSON-escaped size, whatever its escapes cost", async () => {
    const file = (await run('TOOL_CODEHOST_READ_FILE', { repository: 'acme/app', path: 'quotes.txt' }, { maxBytes: 3000 })) as { text: string; truncated?: boolean };
    expect(file.truncated).toBe(true);
    expect(JSON.stringify(file).length).toBeLessThanOrEqual(3000);
    expect(file.text.startsWith('"\\"')).toBe(true);
  });
});
