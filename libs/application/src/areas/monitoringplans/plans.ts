/**
 * The monitoring plans' use cases, shared by the api's methods and the projector's reactors: record a
 * pull request (rules 5 and 6), activate plans from a deployment (rule 3) or a plan from the
 * deployments already made (rule 4). Each reads what it needs (the code host, the issues, the
 * deployments) before deciding, then sends one command per plan stream; effects on issues follow from
 * the plan's events (issues.reactor.ts), never from a second append here.
 */
import { closingReferences } from '@svc/domain/monitoringplans/closing-references';
import { linkOutcome, monitoringPlanDecider, planNameFor, type IssueFact, type MonitoredDeploymentInput, type PlanCommand } from '@svc/domain/monitoringplans/monitoring-plan.decider';
import { environmentName, monitoringPlanSpec, parsePullRequestUrl, type PullRequestFacts } from '@svc/domain/monitoringplans/monitoring-plan.resource';
import type { Actor } from '@svc/domain/shared/decider';
import { failedPrecondition, invalid, notFound } from '@svc/domain/shared/domain-error';
import { resourceStreamId, storeOf, type Resource, type ResourceEvent, type ResourceState } from '@svc/domain/shared/resource';
import type { Handled } from '@svc/infrastructure/commands/command-service';
import { codeHostFailure } from '@svc/infrastructure/integrations/codehost/codehost-of';
import type { CodeHost } from '@svc/infrastructure/integrations/codehost/codehost.port';
import type { Doc, ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import type { CommandSender } from '../../commands/command-sender';
import { DecideAndAppend } from '../../commands/decide-and-append';
import type { CodeHosts } from '../../integrations/code-hosts';

export const PLANS = storeOf(monitoringPlanSpec);
const ISSUE_NAME = /^issues\/[a-zA-Z0-9][a-zA-Z0-9_-]{0,127}$/;
/** Plans of one repository a deployment considers at most (newest first). */
export const MAX_CANDIDATE_PLANS = 500;
/** Commits of a deployed range read at once; a longer range is judged by ancestry instead. */
const MAX_RANGE = 1000;
/** Deployments of a repository ActivatePlanFromDeployments reads to find each environment's latest. */
const MAX_RECENT_DEPLOYMENTS = 500;

export interface RecordedPullRequest {
  plan: Resource;
  linkedIssues: string[];
  promotedIssues: string[];
  ignoredReferences: string[];
}

export interface ActivatedPlan {
  name: string;
  activation: { mergeSha?: string; environments: string[] };
}

export interface DeployedRange {
  repository: string;
  environment: string;
  deployedSha: string;
  baseSha?: string;
  /** `deployments/{id}` when known. */
  deployment?: string;
  deployTime: string;
}

export class MonitoringPlans {
  constructor(
    private readonly bus: CommandSender,
    private readonly reads: ReadStore,
    private readonly codeHosts: Pick<CodeHosts, 'hostFor'>,
  ) {}

  /**
   * Rule 6 (`issues: 'closing-references'`: the issues the title and body close; unknown ones are
   * ignored) or rule 5 (one named issue, which must exist). The pull request is read from the code
   * host of the organization that has its repository; a title or body in the request wins (a webhook
   * carries the newest).
   */
  async recordPullRequest(
    actor: Actor,
    request: { prUrl: string; title?: string; body?: string; issue?: string; requestId?: string },
    projection?: string,
  ): Promise<RecordedPullRequest> {
    const { repository, number } = parsePullRequestUrl(request.prUrl);
    if (request.issue !== undefined && !ISSUE_NAME.test(request.issue)) throw invalid(`issue_name must look like 'issues/{id}', got '${request.issue.slice(0, 200)}'`);
    const host = await this.hostOf(actor.org, repository);
    const pr = await guarded(() => host.getPullRequest(repository, number));
    const facts: PullRequestFacts = {
      repository,
      number,
      url: pr.url,
      title: request.title ?? pr.title,
      body: request.body ?? pr.body,
      headSha: pr.headSha,
      mergeSha: pr.mergeSha,
      authorLogin: pr.authorLogin,
      authorId: pr.authorId,
    };
    const wanted = request.issue !== undefined ? [request.issue] : closingReferences(`${facts.title}\n${facts.body}`);
    const found = await this.issues(actor.org, wanted);
    if (request.issue !== undefined && found.length === 0) throw notFound(`issue '${request.issue}' not found`);
    const command: PlanCommand = { type: 'RecordPullRequest', actor, pullRequest: facts, issues: found };
    const handled = await this.send(actor, planNameFor(facts), command, projection, request.requestId);
    const plan = handled.state.resource!;
    return { plan, ...linkOutcome(plan, found), ignoredReferences: wanted.filter((w) => !found.some((f) => f.issue === w)) };
  }

  /**
   * Rule 3: plans of the repository whose merge commit the deployment brought (`base..deployed`, or
   * with no base the deployed commit's history), each given an entry for the environment once.
   */
  async activateFromDeployment(actor: Actor, range: DeployedRange, projection?: string): Promise<ActivatedPlan[]> {
    const host = await this.hostOf(actor.org, range.repository);
    const environment = environmentName(range.environment);
    const candidates = await this.mergedPlans(actor.org, range.repository, environment);
    if (candidates.length === 0) return [];
    const deployed = await guarded(() => host.resolveRef(range.repository, range.deployedSha));
    if (deployed === null) throw invalid(`deployed_sha '${range.deployedSha.slice(0, 100)}' names no commit of ${range.repository}`);
    const landed = await this.landed(host, range.repository, candidates, deployed, range.baseSha || undefined);
    const entry: MonitoredDeploymentInput = { environment, deployment: range.deployment ?? '', deployTime: range.deployTime };
    return this.activateAll(actor, landed, [entry], projection);
  }

  /**
   * Rule 4: for each environment whose latest successful deployment of the plan's repository contains
   * the plan's merge commit (an ancestor of the deployed commit), an entry, once.
   */
  async activatePlan(actor: Actor, name: string, projection?: string): Promise<ActivatedPlan[]> {
    const plan = await this.reads.collection(PLANS).findOne({ _org: actor.org, name });
    if (!plan) throw notFound(`monitoring plan '${name}' not found`);
    const repository = String((plan.origin as Doc | undefined)?.repository ?? '');
    const mergeSha = (plan.activation as Doc | undefined)?.mergeSha;
    if (typeof mergeSha !== 'string' || mergeSha === '') throw failedPrecondition(`monitoring plan '${name}' has no merge commit yet: its pull request has not landed`, 'PLAN_NOT_MERGED');
    const active = new Set(strings((plan.activation as Doc).environments));
    const host = await this.hostOf(actor.org, repository);
    const entries: MonitoredDeploymentInput[] = [];
    for (const [environment, latest] of await this.latestDeployments(actor.org, repository)) {
      if (active.has(environment)) continue;
      if (await guarded(() => host.isAncestor(repository, mergeSha, latest.sha))) entries.push({ environment, deployment: latest.name, deployTime: latest.time });
    }
    return this.activateAll(actor, [plan], entries, projection);
  }

  // ------------------------------------------------------------------ internals

  private async activateAll(actor: Actor, plans: Doc[], entries: MonitoredDeploymentInput[], projection?: string): Promise<ActivatedPlan[]> {
    if (entries.length === 0) return [];
    const activated: ActivatedPlan[] = [];
    for (const plan of plans) {
      const handled = await this.send(actor, String(plan.name), { type: 'Activate', actor, name: String(plan.name), entries }, projection);
      if (handled.events.length === 0) continue;
      const activation = (handled.state.resource?.activation ?? { environments: [] }) as ActivatedPlan['activation'];
      activated.push({ name: String(plan.name), activation });
    }
    return activated;
  }

  /** The candidates whose merge commit is in `base..deployed` (or reachable from deployed without a base). */
  private async landed(host: CodeHost, repository: string, candidates: Doc[], deployed: string, base?: string): Promise<Doc[]> {
    const mergeOf = (plan: Doc) => String((plan.activation as Doc).mergeSha).toLowerCase();
    if (base !== undefined) {
      const commits = await guarded(() => host.commitsBetween(repository, base, deployed, MAX_RANGE));
      const inRange = new Set(commits.map((c) => c.sha.toLowerCase()));
      if (commits.length < MAX_RANGE) return candidates.filter((plan) => inRange.has(mergeOf(plan)));
      // A range past the read: the rest judged by ancestry (in deployed, not in base).
      const landed: Doc[] = [];
      for (const plan of candidates) {
        if (inRange.has(mergeOf(plan))) landed.push(plan);
        else if ((await guarded(() => host.isAncestor(repository, mergeOf(plan), deployed))) && !(await guarded(() => host.isAncestor(repository, mergeOf(plan), base)))) landed.push(plan);
      }
      return landed;
    }
    const landed: Doc[] = [];
    for (const plan of candidates) if (await guarded(() => host.isAncestor(repository, mergeOf(plan), deployed))) landed.push(plan);
    return landed;
  }

  /** Merged plans of a repository not yet active in `environment`, newest first, bounded. */
  private mergedPlans(org: string, repository: string, environment: string): Promise<Doc[]> {
    return this.reads.collection(PLANS).find(
      {
        $and: [
          { _org: org },
          { 'origin.repository': repository },
          { 'activation.mergeSha': { $exists: true } },
          { 'activation.environments': { $ne: environment } },
          { deleteTime: { $exists: false } },
        ],
      },
      { sort: { createTime: -1, name: 1 }, limit: MAX_CANDIDATE_PLANS },
    );
  }

  /** Each environment's latest successful deployment of `repository` (labels.repository, labels.sha). */
  private async latestDeployments(org: string, repository: string): Promise<Map<string, { name: string; sha: string; time: string }>> {
    const docs = await this.reads.collection('deployments').find(
      { $and: [{ _org: org }, { 'labels.repository': repository }, { status: 'DEPLOYMENT_STATUS_SUCCESS' }] },
      { sort: { completeTime: -1, name: 1 }, limit: MAX_RECENT_DEPLOYMENTS },
    );
    const latest = new Map<string, { name: string; sha: string; time: string }>();
    for (const doc of docs) {
      const labels = (doc.labels ?? {}) as Record<string, unknown>;
      if (typeof labels.environment !== 'string' || typeof labels.sha !== 'string') continue;
      const environment = environmentName(labels.environment);
      if (!latest.has(environment)) latest.set(environment, { name: String(doc.name), sha: labels.sha, time: String(doc.completeTime ?? doc.createTime) });
    }
    return latest;
  }

  private async issues(org: string, names: string[]): Promise<IssueFact[]> {
    if (names.length === 0) return [];
    const docs = await this.reads.collection('issues').find({ $and: [{ _org: org }, { name: { $in: names } }, { deleteTime: { $exists: false } }] }, { limit: names.length });
    const byName = new Map(docs.map((d) => [String(d.name), String(d.workflowState ?? 'ISSUE_WORKFLOW_STATE_ACTIONABLE')]));
    return names.filter((n) => byName.has(n)).map((issue) => ({ issue, workflowState: byName.get(issue)! }));
  }

  private async hostOf(org: string, repository: string): Promise<CodeHost> {
    const host = await guarded(() => this.codeHosts.hostFor(org, repository));
    if (!host) throw failedPrecondition(`no code host connection of this organization has the repository ${repository}`, 'CODEHOST_REPOSITORY_UNKNOWN');
    return host;
  }

  private send(actor: Actor, name: string, command: PlanCommand, projection?: string, requestId?: string): Promise<Handled<ResourceState>> {
    return this.bus.execute(
      new DecideAndAppend<ResourceState, PlanCommand, ResourceEvent>(
        { decider: monitoringPlanDecider, streamId: resourceStreamId(monitoringPlanSpec, actor.org, name), command, context: { actor, requestId } },
        projection,
      ),
    );
  }
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/** A code host's failure as the API answers it. */
async function guarded<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw codeHostFailure(error);
  }
}
