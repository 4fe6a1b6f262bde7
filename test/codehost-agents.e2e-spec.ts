/**
 * Agents and the code host (issue 21), through HTTP with the real api and projector and real git
 * repositories this test makes: the TOOL_CODEHOST_* tools through the tool executor (local git, and
 * GitHub through @octokit/rest against test/support/fake-github.ts), and the skills a session sees on
 * /run/skills (built-ins and the organization's enabled skills bundles), in the built-in runtime and
 * the OpenAI-compatible one.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BUILT_IN_SKILLS } from '@svc/domain/skillsbundles/builtin-skills';
import { FakeGitHub } from './support/fake-github';
import { GitFixture } from './support/git-fixture';
import { eventually, Stack, TEST_CONFIG } from './support/harness';

const S = 'svc.nxagent.v2.AgentService';
const SB = 'svc.skills_bundles.v1.SkillsBundlesService';
const ACTIVITY = 'type.googleapis.com/svc.nxagent.v1.Activity';
const GH_TOKEN = 'ghp_codehost_tools_e2e_51c0ffee';
const MAX_BYTES = 8192;
const ALL_TOOLS = ['TOOL_CODEHOST_READ_FILE', 'TOOL_CODEHOST_LIST_DIRECTORY', 'TOOL_CODEHOST_LIST_COMMITS', 'TOOL_CODEHOST_SEARCH'];

const skillFile = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\nSteps for ${name}.\n`;
const tool = (name: string, args: Record<string, unknown>) => `/tool ${name} ${JSON.stringify(args)}`;

interface ReadAnswer {
  messages: Array<Record<string, unknown>>;
  status: string;
  sessionLength: number;
}

function configWith(root: string, githubUrl: string): string {
  return TEST_CONFIG.replace('root: ./repos', `root: "${root}"`).replace(
    '      - id: pagerduty\n',
    `      - id: gh-cloud
        display_name: GitHub cloud
        type: CONNECTION_TYPE_CODEHOST
        details: {codehost: {provider: github, api_url: "${githubUrl}", token: "${GH_TOKEN}"}}
      - id: pagerduty
`,
  );
}

describe('agents on a code host: the TOOL_CODEHOST_* tools and /run/skills (built-in runtime)', () => {
  const fixture = new GitFixture();
  const github = new FakeGitHub(fixture.root, GH_TOKEN);
  let stack: Stack;
  let c1 = '';
  let c2 = '';
  let c3 = '';

  beforeAll(async () => {
    const repo = fixture.repo('acme/svc');
    c1 = repo.commit('first', { 'README.md': '# svc\n' });
    c2 = repo.commit('payments', {
      'src/payments.ts': 'export const retryBudget = 3;\n// RetryBudget is read by the checkout\n',
      'big.txt': `${'y'.repeat(20_000)}\n`,
      'notes/secrets.txt': `the deploy token is ${GH_TOKEN}\n`,
      'skills/deploy-check/SKILL.md': skillFile('deploy-check', 'Check a deployment before it ships'),
      'skills/triage/SKILL.md': skillFile('triage', 'A repository triage the built-in one shadows'),
    });
    repo.branch('next');
    repo.checkout('next');
    c3 = repo.commit('next work', { 'src/next.ts': 'export const retryBudget = 5;\n' });
    repo.checkout('main');
    const githubUrl = await github.start();
    stack = await Stack.start({ config: configWith(fixture.root, githubUrl), env: { SVC_TOOL_MAX_BYTES: String(MAX_BYTES) } });
    const agents = [
      { id: 'coder', agent: { prompt: 'You read code.', connections: [{ name: 'connections/github', enabled_tools: ALL_TOOLS }] } },
      { id: 'cloud', agent: { prompt: 'You read code on GitHub.', connections: [{ name: 'connections/gh-cloud', enabled_tools: ['TOOL_CODEHOST_READ_FILE', 'TOOL_CODEHOST_SEARCH'] }] } },
    ];
    for (const { id, agent } of agents) expect((await stack.rpc(`${S}/CreateAgent`, { agent_id: id, agent })).status).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await stack?.destroy();
    await github.stop();
    fixture.remove();
  });

  /** Writes `lines` to a new session of `agent`; answers the tool results (parsed) once the turn is committed. */
  async function ask(agent: string, lines: string[]): Promise<{ results: Array<Record<string, unknown>>; raw: string; session: string }> {
    const write = await stack.rpc<{ session: string }>(`${S}/Write`, { parent: `agents/${agent}`, messages: [{ '@type': ACTIVITY, user: { text: { text: lines.join('\n') } } }] });
    expect(write.status).toBe(200);
    const read = await eventually(async () => {
      const res = await stack.rpc<ReadAnswer>(`${S}/Read`, { session: write.body.session });
      return res.body.status === 'STATUS_WAITING' && res.body.sessionLength === 4 ? res.body : undefined;
    }, 30_000);
    const toolResults = (read.messages[2].user as { toolResults: Array<{ content: string }> }).toolResults;
    return { results: toolResults.map((r) => JSON.parse(r.content) as Record<string, unknown>), raw: JSON.stringify(read.messages), session: write.body.session };
  }

  it('reads a file at the default branch or a ref; an absent file or ref is NOT_FOUND', async () => {
    const { results } = await ask('coder', [
      tool('TOOL_CODEHOST_READ_FILE', { repository: 'acme/svc', path: 'src/payments.ts' }),
      tool('TOOL_CODEHOST_READ_FILE', { repository: 'acme/svc', path: 'src/next.ts', ref: 'next' }),
      tool('TOOL_CODEHOST_READ_FILE', { repository: 'acme/svc', path: 'src/next.ts' }),
      tool('TOOL_CODEHOST_READ_FILE', { repository: 'acme/svc', path: 'README.md', ref: 'no-such-branch' }),
    ]);
    expect(results).toEqual([
      { repository: 'acme/svc', ref: 'main', commit: c2, path: 'src/payments.ts', text: 'export const retryBudget = 3;\n// RetryBudget is read by the checkout\n' },
      { repository: 'acme/svc', ref: 'next', commit: c3, path: 'src/next.ts', text: 'export const retryBudget = 5;\n' },
      { error: 'NOT_FOUND', message: "acme/svc has no file 'src/next.ts' at main" },
      { error: 'NOT_FOUND', message: "acme/svc has no branch, tag or commit 'no-such-branch'" },
    ]);
  });

  it(`cuts a file at SVC_TOOL_MAX_BYTES (${MAX_BYTES}) and says so; a path outside the repository is refused`, async () => {
    const { results } = await ask('coder', [
      tool('TOOL_CODEHOST_READ_FILE', { repository: 'acme/svc', path: 'big.txt' }),
      tool('TOOL_CODEHOST_READ_FILE', { repository: 'acme/svc', path: '../../etc/passwd' }),
    ]);
    expect(results[0]).toMatchObject({ path: 'big.txt', truncated: true, text: expect.stringMatching(/^y+$/) });
    expect(JSON.stringify(results[0]).length).toBeLessThanOrEqual(MAX_BYTES);
    expect(results[1]).toEqual({ error: 'INVALID_ARGUMENT', message: "connections/github: '../../etc/passwd' is not a repository path" });
  });

  it('lists a directory, the commits of a branch (bounded) and of a range', async () => {
    const { results } = await ask('coder', [
      tool('TOOL_CODEHOST_LIST_DIRECTORY', { repository: 'acme/svc' }),
      tool('TOOL_CODEHOST_LIST_COMMITS', { repository: 'acme/svc', ref: 'next', limit: 2 }),
      tool('TOOL_CODEHOST_LIST_COMMITS', { repository: 'acme/svc', base: c1 }),
    ]);
    expect(results[0]).toMatchObject({ repository: 'acme/svc', ref: 'main', path: '' });
    expect((results[0].entries as Array<{ name: string; type: string }>).map((e) => `${e.name}:${e.type}`)).toEqual(['README.md:file', 'big.txt:file', 'notes:dir', 'skills:dir', 'src:dir']);
    expect(results[1]).toMatchObject({ ref: 'next', truncated: true });
    expect((results[1].commits as Array<{ sha: string; subject: string }>).map((c) => [c.sha, c.subject])).toEqual([
      [c3, 'next work'],
      [c2, 'payments'],
    ]);
    expect(results[2]).toEqual({ repository: 'acme/svc', ref: 'main', base: c1, commits: [{ sha: c2, subject: 'payments', author: 'Ada', time: expect.any(String) }] });
  });

  it('searches the default branch for the text as written (case-insensitive, never a pattern or an option), bounded', async () => {
    const { results } = await ask('coder', [
      tool('TOOL_CODEHOST_SEARCH', { repository: 'acme/svc', query: 'retrybudget' }),
      tool('TOOL_CODEHOST_SEARCH', { repository: 'acme/svc', query: 'retrybudget', limit: 1 }),
      tool('TOOL_CODEHOST_SEARCH', { repository: 'acme/svc', query: '.*' }),
      tool('TOOL_CODEHOST_SEARCH', { repository: 'acme/svc', query: '--no-index' }),
    ]);
    // src/next.ts says it too, on a branch that is not the default one.
    expect(results[0]).toEqual({
      repository: 'acme/svc',
      query: 'retrybudget',
      matches: [
        { path: 'src/payments.ts', line: 1, text: 'export const retryBudget = 3;' },
        { path: 'src/payments.ts', line: 2, text: '// RetryBudget is read by the checkout' },
      ],
    });
    expect(results[1]).toEqual({ repository: 'acme/svc', query: 'retrybudget', matches: [{ path: 'src/payments.ts', line: 1, text: 'export const retryBudget = 3;' }], truncated: true });
    expect(results[2]).toEqual({ repository: 'acme/svc', query: '.*', matches: [] });
    expect(results[3]).toEqual({ repository: 'acme/svc', query: '--no-index', matches: [] });
  });

  it('on GitHub (Octokit against the documented fake): the same tools, and the connection\'s token never reaches the session', async () => {
    const { results, raw } = await ask('cloud', [
      tool('TOOL_CODEHOST_SEARCH', { repository: 'acme/svc', query: 'retryBudget' }),
      tool('TOOL_CODEHOST_READ_FILE', { repository: 'acme/svc', path: 'notes/secrets.txt' }),
    ]);
    expect(results[0]).toEqual({
      repository: 'acme/svc',
      query: 'retryBudget',
      matches: [
        { path: 'src/payments.ts', line: null, text: 'export const retryBudget = 3;' },
        { path: 'src/payments.ts', line: null, text: '// RetryBudget is read by the checkout' },
      ],
    });
    expect(results[1]).toMatchObject({ path: 'notes/secrets.txt', text: 'the deploy token is [redacted]\n' });
    expect(github.requests.some((r) => r.path === '/search/code')).toBe(true);
    expect(raw).not.toContain(GH_TOKEN);
    expect(stack.output.join('')).not.toContain(GH_TOKEN);
  });

  describe('/run/skills', () => {
    const createBundle = async (id: string, bundle: Record<string, unknown>) =>
      expect((await stack.rpc(`${SB}/CreateSkillsBundle`, { skills_bundle_id: id, skills_bundle: { connection: 'connections/github', repository: 'acme/svc', ...bundle } })).status).toBe(200);

    it("a session lists the built-ins and its organization's bundles' skills, and reads one by name; a built-in wins a clash", async () => {
      await createBundle('ops', {});
      const { results } = await ask('cloud', ['/skills', '/skill deploy-check', '/skill triage']);
      expect(results[0]).toEqual({
        skills: [
          { name: 'triage', description: BUILT_IN_SKILLS[0].description, source: 'builtin' },
          { name: 'rollback', description: BUILT_IN_SKILLS[1].description, source: 'builtin' },
          { name: 'deploy-check', description: 'Check a deployment before it ships', source: 'skills-bundles/ops' },
        ],
      });
      expect(results[1]).toEqual({ name: 'deploy-check', source: 'skills-bundles/ops', body: skillFile('deploy-check', 'Check a deployment before it ships') });
      expect(results[2]).toEqual({ name: 'triage', source: 'builtin', body: BUILT_IN_SKILLS[0].body });
    });

    it('a bundle that cannot be read is reported by name, and the turn still answers with the others', async () => {
      await createBundle('broken', { repository: 'acme/missing' });
      const { results } = await ask('coder', ['/skills']);
      expect((results[0].skills as Array<{ name: string }>).map((s) => s.name)).toEqual(['triage', 'rollback', 'deploy-check']);
      expect(results[0].unavailable).toEqual([{ bundle: 'skills-bundles/broken', message: expect.stringContaining('acme/missing') }]);
      expect((await stack.rpc(`${SB}/DeleteSkillsBundle`, { name: 'skills-bundles/broken' })).status).toBe(200);
    });

    it("a disabled or deleted bundle's skills are gone from the next turn", async () => {
      const update = (enabled: boolean) => stack.rpc(`${SB}/UpdateSkillsBundle`, { skills_bundle: { name: 'skills-bundles/ops', enabled }, update_mask: 'enabled' });
      const readDeployCheck = async () => (await ask('coder', ['/skill deploy-check'])).results[0];
      expect((await update(false)).status).toBe(200);
      expect(await readDeployCheck()).toEqual({ error: 'NOT_FOUND', message: "no skill 'deploy-check' on /run/skills; list_skills lists them" });
      expect((await update(true)).status).toBe(200);
      expect(await readDeployCheck()).toMatchObject({ name: 'deploy-check' });
      expect((await stack.rpc(`${SB}/DeleteSkillsBundle`, { name: 'skills-bundles/ops' })).status).toBe(200);
      expect(await readDeployCheck()).toMatchObject({ error: 'NOT_FOUND' });
    });
  });
});

/**
 * A chat-completions server playing a model: asked after a user message, it calls read_skill with
 * the message's text as the name; asked after the tool's answer, it says `Read: <the answer>`.
 */
class SkillReadingModel {
  private server!: Server;
  requests: Array<{ messages: Array<{ role: string; content?: string | null }>; tools?: Array<{ function: { name: string } }> }> = [];

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const request = JSON.parse(body) as SkillReadingModel['requests'][number];
        this.requests.push(request);
        const last = request.messages[request.messages.length - 1];
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = (delta: Record<string, unknown>, finish?: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta, ...(finish ? { finish_reason: finish } : {}) }] })}\n\n`;
        if (last.role === 'user') {
          const call = { index: 0, id: `call_${this.requests.length}`, type: 'function', function: { name: 'read_skill', arguments: JSON.stringify({ name: String(last.content) }) } };
          res.end(`${chunk({ tool_calls: [call] })}${chunk({}, 'tool_calls')}data: [DONE]\n\n`);
        } else {
          res.end(`${chunk({ content: `Read: ${String(last.content)}` })}${chunk({}, 'stop')}data: [DONE]\n\n`);
        }
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

describe('/run/skills in the OpenAI-compatible runtime', () => {
  const fixture = new GitFixture();
  const model = new SkillReadingModel();
  let stack: Stack;

  beforeAll(async () => {
    fixture.repo('acme/svc').commit('skills', { 'skills/deploy-check/SKILL.md': skillFile('deploy-check', 'Check a deployment before it ships') });
    const baseUrl = await model.start();
    stack = await Stack.start({
      layout: 'inprocess',
      config: TEST_CONFIG.replace('root: ./repos', `root: "${fixture.root}"`),
      env: { SVC_AGENT_RUNTIME: 'openai', SVC_MODEL_BASE_URL: baseUrl, SVC_MODEL: 'fake-model' },
    });
    expect((await stack.rpc(`${S}/CreateAgent`, { agent_id: 'reader', agent: { prompt: 'You follow skills.' } })).status).toBe(200);
    const bundle = { connection: 'connections/github', repository: 'acme/svc' };
    expect((await stack.rpc(`${SB}/CreateSkillsBundle`, { skills_bundle_id: 'ops', skills_bundle: bundle })).status).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await stack?.destroy();
    await model.stop();
    fixture.remove();
  });

  it('the model is told the catalog, offered read_skill, and reads the SKILL.md it asks for', async () => {
    const write = await stack.rpc<{ session: string }>(`${S}/Write`, { parent: 'agents/reader', messages: [{ '@type': ACTIVITY, user: { text: { text: 'deploy-check' } } }] });
    expect(write.status).toBe(200);
    const read = await eventually(async () => {
      const res = await stack.rpc<ReadAnswer>(`${S}/Read`, { session: write.body.session });
      return res.body.status === 'STATUS_WAITING' && res.body.sessionLength === 4 ? res.body : undefined;
    }, 30_000);
    expect(read.messages[1]).toEqual({ '@type': ACTIVITY, assistant: { toolCalls: [{ id: expect.any(String), name: 'read_skill', arguments: JSON.stringify({ name: 'deploy-check' }) }] } });
    const content = (read.messages[2].user as { toolResults: Array<{ content: string }> }).toolResults[0].content;
    expect(JSON.parse(content)).toEqual({ name: 'deploy-check', source: 'skills-bundles/ops', body: skillFile('deploy-check', 'Check a deployment before it ships') });
    expect(read.messages[3]).toEqual({ '@type': ACTIVITY, assistant: { text: { text: `Read: ${content}` } } });
    const first = model.requests[0];
    expect(first.messages[0]).toEqual({
      role: 'system',
      content: expect.stringContaining('Skills on the read-only /run/skills mount (read one with read_skill):\n- triage: '),
    });
    expect(first.messages[0].content).toContain('\n- deploy-check: Check a deployment before it ships');
    expect(first.tools?.map((t) => t.function.name)).toEqual(['read_skill', 'list_skills', 'conclude']);
  });
});
