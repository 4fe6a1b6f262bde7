/**
 * Monitoring plans (spec part 2, "Monitoring plan"): one per pull request, born when the pull
 * request is first recorded (RecordPullRequestUpdated, RecordPullRequestFixLink), activated per
 * environment by deployments that contain its merge commit, and linked to the issues it fixes.
 *
 * The read model and Get/List are the resource kit's (the events below have the kit's shapes:
 * `MonitoringPlanCreated {resource}` and patch events with `set`), so `resourceDecider(spec).evolve`
 * folds the stream; `decide` is this aggregate's own (monitoring-plan.decider.ts). Every event but
 * Created carries `snapshot`, the plan after it, which the issues reactor reads.
 */
import { createHash } from 'node:crypto';
import { invalid } from '../shared/domain-error';
import { commonId, type ResourceSpec } from '../shared/resource';

export const PLAN_KIND = 'MonitoringPlan';
export const PLAN_EVENTS = {
  created: `${PLAN_KIND}Created`,
  pullRequestRecorded: `${PLAN_KIND}PullRequestRecorded`,
  activated: `${PLAN_KIND}Activated`,
  inProgressCommentRecorded: `${PLAN_KIND}InProgressCommentRecorded`,
} as const;

export const monitoringPlanSpec: ResourceSpec = {
  kind: PLAN_KIND,
  collection: 'monitoring-plans',
  idRequired: false,
  ...commonId('plan_id'),
  // Nothing is settable through a Create or Update: plans come from pull requests.
  settable: [],
  undeletable: false,
  snapshots: true,
};

/** A pull request as the code host answered it (facts the handler read before deciding). */
export interface PullRequestFacts {
  /** `owner/repo` */
  repository: string;
  number: number;
  url: string;
  title: string;
  body: string;
  headSha: string;
  mergeSha: string | null;
  authorLogin: string;
  authorId: string;
}

/** `owner/repo#n` from a pull request's page URL (`https://github.com/o/r/pull/n`, `local-git://o/r/pull/n`). */
export function parsePullRequestUrl(url: string): { repository: string; number: number } {
  if (url.length > 2048) throw invalid('pr_url is longer than 2048 characters');
  const scheme = url.indexOf('://');
  if (scheme <= 0) throw invalid(`pr_url must be a pull request's URL such as https://github.com/{owner}/{repo}/pull/{number}, got '${url.slice(0, 200)}'`);
  const cut = [url.indexOf('?'), url.indexOf('#')].filter((i) => i >= 0);
  const trimmed = url.slice(scheme + 3, cut.length > 0 ? Math.min(...cut) : url.length).replace(/\/$/, '');
  const segments = trimmed.split('/');
  const n = segments.length;
  const [owner, repo, pull, number] = segments.slice(n - 4);
  if (n < 4 || (pull !== 'pull' && pull !== 'pulls') || !/^[1-9][0-9]{0,15}$/.test(number ?? '') || !/^[A-Za-z0-9_.-]{1,100}$/.test(owner) || !/^[A-Za-z0-9_.-]{1,100}$/.test(repo)) {
    throw invalid(`pr_url must be a pull request's URL such as https://github.com/{owner}/{repo}/pull/{number}, got '${url.slice(0, 200)}'`);
  }
  if ([owner, repo].some((p) => p === '.' || p === '..')) throw invalid(`pr_url names no repository: '${url.slice(0, 200)}'`);
  return { repository: `${owner}/${repo}`, number: Number(number) };
}

/**
 * A plan's ID from its pull request, so every recording of one pull request finds the same plan: the
 * readable `owner-repo-pr-n` (cut to fit) and 8 hex digits of a hash of the exact `owner/repo#n`,
 * since the readable part alone can collide (`a-b/c` and `a/b-c`).
 */
export function planIdFor(repository: string, number: number): string {
  const readable = `${repository.replace(/[^A-Za-z0-9_-]/g, '-')}-pr-${number}`.replace(/^[^A-Za-z0-9]+/, '').slice(0, 100);
  const hash = createHash('sha256').update(`${repository}#${number}`).digest('hex').slice(0, 8);
  return `${readable}-${hash}`;
}

/** `deployment-environments/{id}` of an environment named either way. */
export function environmentName(environment: string): string {
  return environment.startsWith('deployment-environments/') ? environment : `deployment-environments/${environment}`;
}

/**
 * The plan's content while no agent has written one: the pull request itself, in Markdown. An agent
 * session writing the plan (authorSession) would replace it; until then each recording regenerates it.
 */
export function generatedPlanContent(pr: PullRequestFacts): { planContent: string; planSummary: string } {
  const body = pr.body.trim() === '' ? '_No description._' : pr.body.trim();
  return {
    planSummary: `Watch ${pr.repository}#${pr.number} (${pr.title}) after it deploys.`,
    planContent: `# Monitoring plan: ${pr.title}\n\nPull request: ${pr.url} by @${pr.authorLogin}\n\n## What changes\n\n${body}\n`,
  };
}
