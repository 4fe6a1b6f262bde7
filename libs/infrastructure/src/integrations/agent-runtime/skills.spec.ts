import type { RuntimeSkills, ToolCall, TurnInput } from './agent-runtime.port';
import { BuiltinRuntime } from './builtin-runtime';
import { MAX_SKILL_READ_CHARS, skillsCatalog, skillToolResult, withSkillTools } from './skills';

const skills: RuntimeSkills = {
  skills: [
    { name: 'triage', description: 'Sort alerts', body: '---\ndescription: Sort alerts\n---\nLook first.\n', source: 'builtin' },
    { name: 'huge', description: 'Long\nlines', body: 'x'.repeat(MAX_SKILL_READ_CHARS + 10), source: 'skills-bundles/ops' },
  ],
  unavailable: [{ bundle: 'skills-bundles/broken', message: 'repository acme/gone not found' }],
};
const call = (name: string, args: unknown = {}): ToolCall => ({ id: 'c1', name, arguments: typeof args === 'string' ? args : JSON.stringify(args) });
const content = (name: string, args?: unknown, from: RuntimeSkills | undefined = skills) => JSON.parse(skillToolResult(call(name, args), from).content) as Record<string, unknown>;

describe('the /run/skills tools', () => {
  it('lists names, descriptions and sources (never bodies) and the bundles that could not be read', () => {
    expect(content('list_skills')).toEqual({
      skills: [
        { name: 'triage', description: 'Sort alerts', source: 'builtin' },
        { name: 'huge', description: 'Long\nlines', source: 'skills-bundles/ops' },
      ],
      unavailable: skills.unavailable,
    });
    expect(JSON.parse(skillToolResult(call('list_skills'), undefined).content)).toEqual({ skills: [] });
  });

  it('reads a skill by name or by its path on the mount, cut at MAX_SKILL_READ_CHARS', () => {
    expect(content('read_skill', { name: 'triage' })).toEqual({ name: 'triage', source: 'builtin', body: skills.skills[0].body });
    expect(content('read_skill', { name: '/run/skills/triage/SKILL.md' })).toMatchObject({ name: 'triage' });
    const huge = content('read_skill', { name: 'huge' });
    expect(huge).toMatchObject({ truncated: true });
    expect((huge.body as string).length).toBe(MAX_SKILL_READ_CHARS);
  });

  it('answers a bad or unknown name as an error the model reads', () => {
    expect(content('read_skill', { name: 'nope' })).toEqual({ error: 'NOT_FOUND', message: "no skill 'nope' on /run/skills; list_skills lists them" });
    expect(content('read_skill', {})).toMatchObject({ error: 'INVALID_ARGUMENT' });
    expect(content('read_skill', 'not json')).toMatchObject({ error: 'INVALID_ARGUMENT' });
  });

  it('hands every other call to the executor', async () => {
    const seen: string[] = [];
    const runner = withSkillTools(async (c) => (seen.push(c.name), { toolCallId: c.id, content: '{}' }), skills);
    const turn = { session: { name: 's', org: 'acme', settings: { dryRun: true, incognito: true } }, agent: { name: 'a', prompt: '', enabledTools: [] } };
    await runner(call('read_skill', { name: 'triage' }), turn);
    await runner(call('TOOL_SQLDB_QUERY'), turn);
    expect(seen).toEqual(['TOOL_SQLDB_QUERY']);
  });

  it('tells the model the catalog in one line per skill, and which bundles are missing', () => {
    expect(skillsCatalog(skills)).toBe(
      'Skills on the read-only /run/skills mount (read one with read_skill):\n- triage: Sort alerts\n- huge: Long lines\n(skills-bundles/broken could not be read: repository acme/gone not found)',
    );
    expect(skillsCatalog(undefined)).toBe('');
  });

  it('in the built-in runtime, `/skills` lists and `/skill NAME` reads, for an agent with no tools enabled', async () => {
    const input: TurnInput = {
      session: { name: 'agents/a/sessions/s', org: 'acme', settings: { dryRun: false, incognito: false } },
      agent: { name: 'agents/a', prompt: '', enabledTools: [] },
      messages: [],
      pending: [{ user: { text: { text: '/skills\n/skill triage' } } }],
      turnId: 't',
      skills,
    };
    const { activities } = await new BuiltinRuntime().runTurn(input, () => undefined);
    expect(activities[0]).toEqual({
      assistant: {
        toolCalls: [
          { id: 't-call-0', name: 'list_skills', arguments: '{}' },
          { id: 't-call-1', name: 'read_skill', arguments: '{"name":"triage"}' },
        ],
      },
    });
    const results = (activities[1] as { user: { toolResults: Array<{ content: string }> } }).user.toolResults.map((r) => JSON.parse(r.content) as Record<string, unknown>);
    expect(results[1]).toEqual({ name: 'triage', source: 'builtin', body: skills.skills[0].body });
  });
});
