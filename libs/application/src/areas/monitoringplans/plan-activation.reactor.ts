/**
 * Plan activation from deployments (rules 3 and 4), on the shared reactor runner (checkpoint
 * `reactor:plan-activation`):
 * - a deployment reaching DEPLOYMENT_STATUS_SUCCESS with `labels.repository`, `labels.environment`
 *   and `labels.sha` activates the merged plans of that repository whose merge commit the deployed
 *   commit contains (ActivateFromDeployment with no base: the deployed commit's history decides, as
 *   the post-deploy triggers' ancestry does);
 * - a plan whose merge commit is first recorded (its pull request landed after it deployed) is
 *   activated from the deployments already made (ActivatePlanFromDeployments).
 * Both are idempotent (one entry per environment), so redeliveries append nothing.
 */
import { deploymentSpec, STATUS_CHANGED } from '@svc/domain/deployments/deployment.resource';
import { monitoringPlanSpec, PLAN_EVENTS } from '@svc/domain/monitoringplans/monitoring-plan.resource';
import { DomainError } from '@svc/domain/shared/domain-error';
import { resourceStreamId, type Resource } from '@svc/domain/shared/resource';
import { resourceDecider } from '@svc/domain/shared/resource.decider';
import { SecretBox } from '@svc/infrastructure/config/secrets';
import type { RecordedEvent } from '@svc/infrastructure/event-store/event-store.port';
import type { ReactorJob } from '@svc/infrastructure/reactors/event-reactor';
import { CodeHosts } from '../../integrations/code-hosts';
import type { Reactor } from '../../reactors/reactor';
import { PLAN_REACTOR_ACTOR } from './plan-issues.reactor';
import { MonitoringPlans, PLANS } from './plans';

const SUCCESS = 'DEPLOYMENT_STATUS_SUCCESS';
const deploymentFold = resourceDecider(deploymentSpec);
const PLAN_STREAMS = resourceStreamId(monitoringPlanSpec, '', '').slice(0, -1);
/** How long a job waits for the plans' read model to reach its event (the plans it reads). */
const CATCH_UP_MS = 10_000;

type ActivationJob = ReactorJob & { org: string; record: RecordedEvent } & ({ kind: 'deployed'; deployment: string } | { kind: 'merged'; plan: string });

export const planActivationReactor: Reactor = {
  name: 'plan-activation',
  drivenBy: 'events',
  create(ctx) {
    const plans = new MonitoringPlans(ctx.bus, ctx.reads, new CodeHosts(ctx.reads, SecretBox.fromEnvironment(ctx.settings.dataDir)));
    const run = async (job: ActivationJob): Promise<string> => {
      await ctx.waiter.waitFor(PLANS, job.record.position, CATCH_UP_MS);
      const actor = { org: job.org, actor: PLAN_REACTOR_ACTOR, subject: PLAN_REACTOR_ACTOR, permissions: [], now: new Date().toISOString() };
      try {
        if (job.kind === 'merged') return `${(await plans.activatePlan(actor, job.plan)).length} plan(s) activated`;
        const deployment = (await ctx.folds.stateOf(deploymentFold, resourceStreamId(deploymentSpec, job.org, job.deployment))).resource;
        const labels = (deployment?.labels ?? {}) as Record<string, unknown>;
        const [repository, environment, sha] = [labels.repository, labels.environment, labels.sha];
        if (typeof repository !== 'string' || typeof environment !== 'string' || typeof sha !== 'string') return 'no repository, environment and sha labels';
        const deployTime = String(deployment?.completeTime ?? job.record.metadata.occurredAt);
        const activated = await plans.activateFromDeployment(actor, { repository, environment, deployedSha: sha, deployment: job.deployment, deployTime });
        return `${activated.length} plan(s) activated`;
      } catch (error) {
        // No code host has the repository, or the plan cannot be activated: nothing to do, for good.
        if (error instanceof DomainError && (error.code === 'FAILED_PRECONDITION' || error.code === 'NOT_FOUND' || error.code === 'INVALID_ARGUMENT')) return `skipped: ${error.message}`;
        throw error;
      }
    };
    return { runner: ctx.follow<ActivationJob>({ select, run }, { concurrency: 2 }) };
  },
};

/** Which events are jobs: a deployment's success, and a plan's merge commit first recorded. */
export function select(record: RecordedEvent): ActivationJob | null {
  const org = record.metadata.org;
  if (record.type === STATUS_CHANGED && record.streamId.startsWith(resourceStreamId(deploymentSpec, '', '').slice(0, -1))) {
    if ((record.data.set as Record<string, unknown> | undefined)?.status !== SUCCESS) return null;
    const deployment = record.streamId.slice(record.streamId.indexOf(':') + 1);
    return { kind: 'deployed', key: record.streamId, label: `${org}:${deployment} succeeded`, org, record, deployment };
  }
  if (!record.streamId.startsWith(PLAN_STREAMS)) return null;
  const data = record.data as { resource?: Resource; set?: Record<string, unknown> };
  const merged = record.type === PLAN_EVENTS.created ? data.resource?.activation !== undefined : record.type === PLAN_EVENTS.pullRequestRecorded && data.set?.activation !== undefined;
  if (!merged) return null;
  const plan = record.streamId.slice(record.streamId.indexOf(':') + 1);
  return { kind: 'merged', key: record.streamId, label: `${org}:${plan} merged`, org, record, plan };
}
