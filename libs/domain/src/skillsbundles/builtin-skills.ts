/**
 * The built-in skill library every agent has (spec part 1: built-in library skills sit beside the
 * repository-authored ones on `/run/skills`, and win a name clash). Kept short: each is a procedure
 * the product's own incident flow relies on.
 */
export interface BuiltInSkill {
  name: string;
  description: string;
  body: string;
}

const skill = (name: string, description: string, steps: string): BuiltInSkill => ({
  name,
  description,
  body: `---\nname: ${name}\ndescription: ${description}\n---\n${steps}\n`,
});

export const BUILT_IN_SKILLS: readonly BuiltInSkill[] = [
  skill(
    'triage',
    'Decide how urgent an alert is and who should look at it',
    '1. Read the alert and the indicator it came from.\n2. Check recent deployments of the affected service.\n3. Say the customer impact in one sentence, then propose the next step.',
  ),
  skill(
    'rollback',
    'Decide whether the latest deployment should be rolled back',
    '1. Compare the indicators before and after the deployment.\n2. List the commits of the deployment.\n3. Recommend rolling back only with evidence, and name it.',
  ),
];

export const BUILT_IN_SKILL_NAMES: ReadonlySet<string> = new Set(BUILT_IN_SKILLS.map((s) => s.name));
