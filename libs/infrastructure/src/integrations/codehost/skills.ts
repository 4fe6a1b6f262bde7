/**
 * Skills read live from a repository (spec part 1, "Skills bundle"): each directory under the
 * bundle's directory holding a SKILL.md is a skill named after the directory. Read at one commit (the
 * branch resolved once), at most MAX_SKILLS directories and MAX_SKILL_BYTES per file, a few reads at a
 * time; a repository-authored skill named like a built-in one is not served.
 */
import { BUILT_IN_SKILL_NAMES } from '@svc/domain/skillsbundles/builtin-skills';
import { discoveredSkill, withoutShadowed } from '@svc/domain/skillsbundles/skill-file';
import { CodeHostError, type CodeHost } from './codehost.port';

/** Skill directories read per bundle (ours; docs/api-coverage.md limits). */
export const MAX_SKILLS = 100;
/** Bytes of one SKILL.md (ours); a longer file is cut. */
export const MAX_SKILL_BYTES = 256 * 1024;
const CONCURRENT_READS = 8;

export interface SkillsSource {
  /** `connections/{id}` */
  connection: string;
  repository: string;
  directory: string;
  /** Empty: the repository's default branch. */
  branch: string;
}

/** Where a stored bundle's skills live: `directory` defaults to `skills`, an empty `branch` is the default branch. */
export function skillsSourceOf(bundle: Record<string, unknown>): SkillsSource {
  return {
    connection: String(bundle.connection ?? ''),
    repository: String(bundle.repository ?? ''),
    directory: typeof bundle.directory === 'string' && bundle.directory !== '' ? bundle.directory : 'skills',
    branch: typeof bundle.branch === 'string' ? bundle.branch : '',
  };
}

export interface Skill {
  name: string;
  description: string;
  body: string;
  sourceRef: string;
}

export async function discoverSkills(host: CodeHost, source: SkillsSource): Promise<Skill[]> {
  const ref = source.branch || (await host.getRepository(source.repository)).defaultBranch;
  const commit = ref === '' ? null : await host.resolveRef(source.repository, ref);
  if (commit === null) throw new CodeHostError('NOT_FOUND', `${source.repository} has no branch '${ref}'`);
  const directories = (await host.listDirectory(source.repository, commit, source.directory)).filter((e) => e.type === 'dir').slice(0, MAX_SKILLS);
  const skills: Array<Skill | null> = new Array(directories.length).fill(null);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < directories.length) {
      const i = next++;
      const entry = directories[i];
      const file = await host.readFile(source.repository, commit, `${entry.path}/SKILL.md`, MAX_SKILL_BYTES);
      // The source ref is opaque to clients; it names where the skill came from, to the commit.
      if (file !== null) skills[i] = discoveredSkill(entry.name, file.text, `${source.connection}/${source.repository}@${commit}:${entry.path}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENT_READS, directories.length) }, worker));
  return withoutShadowed(
    skills.filter((s): s is Skill => s !== null),
    BUILT_IN_SKILL_NAMES,
  );
}
