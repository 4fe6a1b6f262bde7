/**
 * The session's view of `/run/skills` (spec part 1, "Skills bundle": skills are exposed to agents on a
 * read-only mount beside the built-in library skills). A runtime has no file system to mount, so the
 * mount is two runtime tools that every session has, whatever its agent enables: `list_skills` (the
 * names, descriptions and sources) and `read_skill` (one skill's SKILL.md by name). They read the
 * turn's RuntimeSkills only, so they change nothing and run in dry-run and incognito sessions too.
 */
import type { RuntimeSkills, ToolCall, ToolResult, ToolRunner } from './agent-runtime.port';

export const LIST_SKILLS_TOOL = 'list_skills';
export const READ_SKILL_TOOL = 'read_skill';
/** Characters of a skill's body one read_skill answers (a SKILL.md is at most 256 KiB when read). */
export const MAX_SKILL_READ_CHARS = 64 * 1024;
/** Characters of one description in the catalog the model is given. */
const MAX_CATALOG_DESCRIPTION = 300;

export function isSkillTool(name: string): boolean {
  return name === LIST_SKILLS_TOOL || name === READ_SKILL_TOOL;
}

/** The answer of a skill tool call, from the turn's skills (none when the runtime was given none). */
export function skillToolResult(call: ToolCall, skills: RuntimeSkills | undefined): ToolResult {
  const answer = (content: Record<string, unknown>): ToolResult => ({ toolCallId: call.id, content: JSON.stringify(content) });
  const available = skills ?? { skills: [], unavailable: [] };
  if (call.name === LIST_SKILLS_TOOL) {
    return answer({
      skills: available.skills.map((s) => ({ name: s.name, description: s.description, source: s.source })),
      ...(available.unavailable.length > 0 ? { unavailable: available.unavailable } : {}),
    });
  }
  let name: unknown;
  try {
    name = (JSON.parse(call.arguments.trim() || '{}') as { name?: unknown }).name;
  } catch {
    return answer({ error: 'INVALID_ARGUMENT', message: `the arguments of ${READ_SKILL_TOOL} must be JSON such as {"name": "triage"}` });
  }
  // `/run/skills/{name}/SKILL.md` names the same skill as `{name}`.
  const wanted = typeof name === 'string' ? name.replace(/^\/run\/skills\//, '').replace(/\/SKILL\.md$/, '') : '';
  if (wanted === '') return answer({ error: 'INVALID_ARGUMENT', message: `${READ_SKILL_TOOL} takes {"name": "<skill name>"}` });
  const skill = available.skills.find((s) => s.name === wanted);
  if (!skill) {
    return answer({ error: 'NOT_FOUND', message: `no skill '${wanted.slice(0, 100)}' on /run/skills; ${LIST_SKILLS_TOOL} lists them` });
  }
  const cut = skill.body.length > MAX_SKILL_READ_CHARS;
  return answer({ name: skill.name, source: skill.source, body: cut ? skill.body.slice(0, MAX_SKILL_READ_CHARS) : skill.body, ...(cut ? { truncated: true } : {}) });
}

/** A ToolRunner answering the skill tools from `skills` and handing every other call to `runTool`. */
export function withSkillTools(runTool: ToolRunner, skills: RuntimeSkills | undefined): ToolRunner {
  return async (call, turn) => (isSkillTool(call.name) ? skillToolResult(call, skills) : runTool(call, turn));
}

/** What the model is told of its skills, for its system message; empty when the runtime was given none. */
export function skillsCatalog(skills: RuntimeSkills | undefined): string {
  if (!skills) return '';
  const lines = [`Skills on the read-only /run/skills mount (read one with ${READ_SKILL_TOOL}):`];
  for (const s of skills.skills) {
    const description = s.description.length > MAX_CATALOG_DESCRIPTION ? `${s.description.slice(0, MAX_CATALOG_DESCRIPTION)}…` : s.description;
    lines.push(`- ${s.name}: ${description.replace(/\s+/g, ' ')}`);
  }
  if (skills.skills.length === 0) lines.push('(none)');
  for (const u of skills.unavailable) lines.push(`(${u.bundle} could not be read: ${u.message})`);
  return lines.join('\n');
}
