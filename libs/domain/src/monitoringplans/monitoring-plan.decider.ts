/**
 * The monitoring plan aggregate's rules (spec part 2, monitoring plans rules 2 to 6). State and fold
 * are the resource kit's (monitoring-plan.resource.ts); the commands are this area's:
 *
 * - RecordPullRequest (rules 5 and 6): the pull request's current facts and the issues it fixes. The
 *   first one creates the plan; later ones patch what changed and link new issues. An issue is
 *   reported promoted when the plan already has monitored deployments and the issue is still
 *   actionable; the issues reactor then records the fix on the issue and moves it.
 * - Activate (rules 3 and 4): one monitored-deployment entry per environment, once; a plan whose pull
 *   request has not landed (no merge commit) cannot be activated.
 * - RecordInProgressComment (rule 2): the placeholder comment's id, edited in place later.
 */
import { ACTIONABLE } from '../issues/issue.resource';
import type { Actor, Decider } from '../shared/decider';
import { failedPrecondition, invalid, notFound } from '../shared/domain-error';
import type { JsonObject } from '../shared/json-path';
import { applyResourceEvent, resourceDecider } from '../shared/resource.decider';
import type { Resource, ResourceEvent, ResourceState } from '../shared/resource';
import { environmentName, generatedPlanContent, monitoringPlanSpec, PLAN_EVENTS, planIdFor, type PullRequestFacts } from './monitoring-plan.resource';

/** An issue the command links, with its workflow state as the handler read it. */
export interface IssueFact {
  issue: string;
  workflowState: string;
}

export interface MonitoredDeploymentInput {
  environment: string;
  /** `deployments/{id}`, or empty when the hook named none. */
  deployment: string;
  deployTime: string;
}

export type PlanCommand =
  | { type: 'RecordPullRequest'; actor: Actor; pullRequest: PullRequestFacts; issues: readonly IssueFact[] }
  | { type: 'Activate'; actor: Actor; name: string; entries: readonly MonitoredDeploymentInput[] }
  | { type: 'RecordInProgressComment'; actor: Actor; name: string; commentId: string };

/** Issues a plan links at most (relatedResources is bounded like every growing list). */
export const MAX_LINKED_ISSUES = 100;
/** Monitored deployments a plan holds at most: one per environment. */
export const MAX_MONITORED_ENVIRONMENTS = 100;

const kit = resourceDecider(monitoringPlanSpec);

export const monitoringPlanDecider: Decider<ResourceState, PlanCommand, ResourceEvent> = {
  initialState: kit.initialState,
  evolve: kit.evolve,
  snapshot: { fold: `monitoringplan:1/${kit.snapshot!.fold}` },
  decide(command, state) {
    switch (command.type) {
      case 'RecordPullRequest':
        return recordPullRequest(command, state);
      case 'Activate':
        return activate(command, state);
      case 'RecordInProgressComment':
        return recordComment(command, state);
    }
  },
};

/** The plan's name for a pull request. */
export const planNameFor = (pr: Pick<PullRequestFacts, 'repository' | 'number'>): string => `${monitoringPlanSpec.collection}/${planIdFor(pr.repository, pr.number)}`;

const deploymentsOf = (plan: Resource | null): JsonObject[] => (Array.isArray(plan?.deployments) ? (plan.deployments as JsonObject[]) : []);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/** What a RecordPullRequest reports (spec: linkedIssues, promotedIssues), from the plan before it. */
export function linkOutcome(plan: Resource | null, issues: readonly IssueFact[]): { linkedIssues: string[]; promotedIssues: string[] } {
  const deployed = deploymentsOf(plan).length > 0;
  return {
    linkedIssues: issues.map((i) => i.issue),
    promotedIssues: deployed ? issues.filter((i) => i.workflowState === ACTIONABLE).map((i) => i.issue) : [],
  };
}

function recordPullRequest(command: Extract<PlanCommand, { type: 'RecordPullRequest' }>, state: ResourceState): ResourceEvent[] {
  const { actor, pullRequest: pr, issues } = command;
  const name = planNameFor(pr);
  if (state.deleted) throw notFound(`monitoring plan '${name}' was deleted`);
  const plan = state.resource;
  const related = strings(plan?.relatedResources);
  const added = issues.map((i) => i.issue).filter((issue, index, all) => !related.includes(issue) && all.indexOf(issue) === index);
  if (related.length + added.length > MAX_LINKED_ISSUES) throw invalid(`a monitoring plan links at most ${MAX_LINKED_ISSUES} issues`);
  const previousOrigin = (plan?.origin ?? {}) as JsonObject;
  const origin: JsonObject = {
    ...previousOrigin,
    repository: pr.repository,
    prNumber: pr.number,
    prUrl: pr.url,
    headSha: pr.headSha,
    prTitle: pr.title,
    prBody: pr.body,
    prAuthorCodehostLogin: pr.authorLogin,
    prAuthorCodehostUserId: pr.authorId,
  };
  const content = plan?.authorSession ? {} : generatedPlanContent(pr);
  const outcome = linkOutcome(plan, issues);
  if (plan === null) {
    const resource: Resource = {
      name,
      origin,
      ...(pr.mergeSha ? { activation: { mergeSha: pr.mergeSha, environments: [] } } : {}),
      ...content,
      intendedEffects: [],
      risks: [],
      deployments: [],
      relatedResources: added,
      createTime: actor.now,
      updateTime: actor.now,
    };
    return [{ type: PLAN_EVENTS.created, data: { resource, ...outcome } as ResourceEvent['data'] }];
  }
  const set: JsonObject = {};
  if (JSON.stringify(origin) !== JSON.stringify(previousOrigin)) set.origin = origin;
  for (const [field, value] of Object.entries(content)) if (plan[field] !== value) set[field] = value;
  const activation = (plan.activation ?? null) as JsonObject | null;
  // A merge commit is recorded once: a pull request lands one way.
  if (pr.mergeSha && !activation?.mergeSha) set.activation = { mergeSha: pr.mergeSha, environments: strings(activation?.environments) };
  if (added.length > 0) set.relatedResources = [...related, ...added];
  // Promotion needs no change on the plan: the reactor reads it from the event (redelivery is a no-op there).
  if (Object.keys(set).length === 0 && outcome.promotedIssues.length === 0) return [];
  return [patch(plan, PLAN_EVENTS.pullRequestRecorded, set, actor.now, outcome)];
}

function activate(command: Extract<PlanCommand, { type: 'Activate' }>, state: ResourceState): ResourceEvent[] {
  const plan = live(state, command.name);
  const activation = (plan.activation ?? {}) as JsonObject;
  if (typeof activation.mergeSha !== 'string' || activation.mergeSha === '') {
    throw failedPrecondition(`monitoring plan '${command.name}' has no merge commit yet: its pull request has not landed`, 'PLAN_NOT_MERGED');
  }
  const active = new Set(strings(activation.environments));
  const entries: JsonObject[] = [];
  for (const entry of command.entries) {
    const environment = environmentName(entry.environment);
    if (active.has(environment)) continue; // idempotent: one entry per environment
    active.add(environment);
    entries.push({
      environment,
      ...(entry.deployment ? { deployment: entry.deployment } : {}),
      deployTime: entry.deployTime,
      intendedEffectConfirmed: false,
    });
  }
  if (entries.length === 0) return [];
  if (active.size > MAX_MONITORED_ENVIRONMENTS) throw invalid(`a monitoring plan monitors at most ${MAX_MONITORED_ENVIRONMENTS} environments`);
  const set: JsonObject = {
    activation: { ...activation, environments: [...active] },
    deployments: [...deploymentsOf(plan), ...entries],
  };
  return [patch(plan, PLAN_EVENTS.activated, set, command.actor.now, { entries })];
}

function recordComment(command: Extract<PlanCommand, { type: 'RecordInProgressComment' }>, state: ResourceState): ResourceEvent[] {
  const plan = live(state, command.name);
  const origin = (plan.origin ?? {}) as JsonObject;
  if (origin.prInProgressCommentId === command.commentId) return [];
  return [patch(plan, PLAN_EVENTS.inProgressCommentRecorded, { origin: { ...origin, prInProgressCommentId: command.commentId } }, command.actor.now, {})];
}

function live(state: ResourceState, name: string): Resource {
  if (state.resource === null || state.deleted) throw notFound(`monitoring plan '${name}' not found`);
  return state.resource;
}

/** A kit patch event with the plan after it (`snapshot`), which the issues reactor reads. */
function patch(plan: Resource, type: string, set: JsonObject, now: string, extra: JsonObject): ResourceEvent {
  const event: ResourceEvent = { type, data: { ...extra, set, unset: [], updateTime: now } };
  const snapshot = applyResourceEvent(plan, event);
  return { type, data: { ...event.data, snapshot } as ResourceEvent['data'] };
}
