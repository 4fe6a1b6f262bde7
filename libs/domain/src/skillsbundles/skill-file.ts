/**
 * A skill's SKILL.md (the open agent-skills format): YAML frontmatter between `---` lines, then the
 * instructions. Only `description` is read from the frontmatter (the name is the directory's);
 * the body answered is the whole file.
 */
import { parseDocument } from 'yaml';

/** The frontmatter, or an empty one when the file has none or it does not parse as a YAML map. */
export function skillFrontmatter(text: string): Record<string, unknown> {
  const normalized = text.startsWith('\ufeff') ? text.slice(1) : text;
  if (!normalized.startsWith('---\n') && !normalized.startsWith('---\r\n')) return {};
  const start = normalized.indexOf('\n') + 1;
  // The closing fence is the first line that is exactly `---` (a linear scan, no pattern).
  let end = -1;
  for (let at = start; at < normalized.length; ) {
    const next = normalized.indexOf('\n', at);
    const line = normalized.slice(at, next === -1 ? normalized.length : next).replace(/\r$/, '');
    if (line === '---') {
      end = at;
      break;
    }
    if (next === -1) break;
    at = next + 1;
  }
  if (end === -1) return {};
  const document = parseDocument(normalized.slice(start, end));
  if (document.errors.length > 0) return {};
  let value: unknown;
  // Aliases are capped when the document is turned into values (maxAliasCount), so a crafted file cannot expand without bound.
  try {
    value = document.toJS({ maxAliasCount: 50 });
  } catch {
    return {}; // "Excessive alias count": a file built to expand is treated as having no frontmatter
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** What ListSkillsBundleSkills answers for one skill directory. */
export function discoveredSkill(name: string, text: string, sourceRef: string): { name: string; description: string; body: string; sourceRef: string } {
  const description = skillFrontmatter(text).description;
  return { name, description: typeof description === 'string' ? description : '', body: text, sourceRef };
}

/** Built-in skills win a name clash with repository-authored ones (spec part 1, "Skills bundle"). */
export function withoutShadowed<T extends { name: string }>(skills: readonly T[], builtIn: ReadonlySet<string>): T[] {
  return skills.filter((skill) => !builtIn.has(skill.name));
}
