/**
 * Post-deploy triggers (docs/decisions.md, "Trigger reactors"), on the shared reactor runner with its
 * own checkpoint `reactor:post-deploy`. When a deployment reaches DEPLOYMENT_STATUS_SUCCESS, every
 * enabled post_deploy trigger of the organization naming its repository (`labels.repository`), its
 * environment (`labels.environment`) and its commit (`labels.sha`) gets a durable timer: a
 * `TriggerFireScheduled` event with the due time (the success's event time plus the trigger's
 * delay) in the trigger's occasion stream. The same reactor follows those events: each waits for its
 * due time, then fires (if the trigger is still enabled). The checkpoint never passes a timer that
 * has not fired, so a restart or a `kill -9` re-arms it from the log.
 */
import { TRIGGER_OCCASION_EVENTS, parseTriggerOccasionStreamId } from '@svc/contracts/reactors/trigger-occasion.events';
import { deploymentSpec, STATUS_CHANGED } from '@svc/domain/deployments/deployment.resource';
import { resourceStreamId } from '@svc/domain/shared/resource';
import { resourceDecider } from '@svc/domain/shared/resource.decider';
import { durationMillis } from '@svc/domain/triggers/durations';
import { triggerSpec } from '@svc/domain/triggers/trigger.resource';
import type { CommandService } from '@svc/infrastructure/commands/command-service';
import type { RecordedEvent } from '@svc/infrastructure/event-store/event-store.port';
import { type ReactorJob, sleep } from '@svc/infrastructure/reactors/event-reactor';
import { SecretBox } from '@svc/infrastructure/config/secrets';
import { CodeHosts } from '../../integrations/code-hosts';
import type { Reactor } from '../../reactors/reactor';
import type { TriggerDirectory, TriggerDoc } from '../../triggers/trigger-directory';
import type { TriggerFire } from '../../triggers/trigger-fire';
import { TRIGGER_REACTORS_OFF, triggerReactorKit } from './trigger-reactor-settings';

const SUCCESS = 'DEPLOYMENT_STATUS_SUCCESS';
const deploymentFold = resourceDecider(deploymentSpec);
const triggerFold = resourceDecider(triggerSpec);

type PostDeployJob = ReactorJob &
  ({ kind: 'succeeded'; org: string; deployment: string; record: RecordedEvent } | { kind: 'due'; org: string; trigger: string; occasion: string; dueTime: string });

/**
 * Whether a deployment's sha is the trigger's: equal, or one an abbreviation of the other. The rule
 * when no code host of the organization has the repository; with one, the release commit lands when
 * it is an ancestor of the deployed commit.
 */
export function sameCommit(triggerSha: string, deploymentSha: string): boolean {
  const [a, b] = [triggerSha.toLowerCase(), deploymentSha.toLowerCase()];
  return a.length >= 7 && b.length >= 7 && (a.startsWith(b) || b.startsWith(a));
}

/** Waiting timers count against the reactor's concurrency (`SVC_POST_DEPLOY_TIMERS`). */
export const postDeployReactor: Reactor = {
  name: 'post-deploy',
  drivenBy: 'events',
  create(ctx) {
    const kit = triggerReactorKit(ctx);
    if (!kit) return TRIGGER_REACTORS_OFF;
    const codeHosts = new CodeHosts(ctx.reads, SecretBox.fromEnvironment(ctx.settings.dataDir));
    const timers = new PostDeployTimers(ctx.folds, kit.directory, kit.firing, kit.now, codeHosts);
    return { runner: ctx.follow<PostDeployJob>({ select, run: (job, signal) => timers.run(job, signal) }, { concurrency: kit.options.timers }) };
  },
};

class PostDeployTimers {
  constructor(
    private readonly commands: Pick<CommandService, 'stateOf'>,
    private readonly directory: TriggerDirectory,
    private readonly firing: TriggerFire,
    private readonly now: () => Date,
    private readonly codeHosts: CodeHosts,
  ) {}

  run(job: PostDeployJob, signal: AbortSignal): Promise<string> {
    return job.kind === 'succeeded' ? this.schedule(job) : this.fireWhenDue(job, signal);
  }

  /** A deployment succeeded: a durable timer for each matching trigger. */
  private async schedule(job: Extract<PostDeployJob, { kind: 'succeeded' }>): Promise<string> {
    const deployment = (await this.commands.stateOf(deploymentFold, resourceStreamId(deploymentSpec, job.org, job.deployment))).resource;
    const labels = (deployment?.labels ?? {}) as Record<string, unknown>;
    const [repository, environment, sha] = [labels.repository, labels.environment, labels.sha];
    if (typeof repository !== 'string' || typeof environment !== 'string' || typeof sha !== 'string') return 'no repository, environment and sha labels';
    await this.directory.caughtUp(job.record.position);
    const candidates = await this.directory.enabled('postDeploy', { repository, environment }, job.org);
    const host = candidates.length > 0 ? await this.codeHosts.hostFor(job.org, repository) : null;
    const triggers: TriggerDoc[] = [];
    for (const trigger of candidates) {
      const releaseSha = String(trigger.configuration.postDeploy.sha);
      // Spec: fires "once the release commit lands in the environment": the deployed commit contains it.
      if (host ? await host.isAncestor(repository, releaseSha, sha) : sameCommit(releaseSha, sha)) triggers.push(trigger);
    }
    const succeededAt = String(deployment?.completeTime ?? job.record.metadata.occurredAt);
    for (const trigger of triggers) {
      const delayMs = durationMillis(trigger.configuration.postDeploy.delay) ?? 0;
      await this.firing.schedule(trigger, {
        occasion: `post_deploy|${job.deployment}`,
        source: 'post_deploy',
        cause: job.deployment,
        dueTime: new Date(Date.parse(succeededAt) + delayMs).toISOString(),
      });
    }
    return `${triggers.length} trigger(s) scheduled`;
  }

  /** A timer: wait until due (cut short by a stop, then re-armed from the log), then fire if still enabled. */
  private async fireWhenDue(job: Extract<PostDeployJob, { kind: 'due' }>, signal: AbortSignal): Promise<string> {
    const wait = Date.parse(job.dueTime) - this.now().getTime();
    if (wait > 0) await sleep(wait, signal);
    if (signal.aborted) return 'stopped before due';
    const state = await this.commands.stateOf(triggerFold, resourceStreamId(triggerSpec, job.org, job.trigger));
    const trigger = state.resource as (TriggerDoc & { enabled?: boolean }) | null;
    if (!trigger || state.deleted || trigger.enabled === false) return 'trigger disabled or deleted: not fired';
    const seed = `Post-deploy trigger ${job.trigger}: ${job.occasion.slice('post_deploy|'.length)} succeeded; fired after its delay at ${job.dueTime}.`;
    return this.firing.fire({ ...trigger, org: job.org, name: job.trigger }, { key: job.occasion, source: 'post_deploy', time: job.dueTime, seed });
  }
}

function select(record: RecordedEvent): PostDeployJob | null {
  if (record.type === STATUS_CHANGED) {
    const set = record.data.set as Record<string, unknown> | undefined;
    if (set?.status !== SUCCESS) return null;
    const colon = record.streamId.indexOf(':');
    const deployment = record.streamId.slice(colon + 1);
    return { kind: 'succeeded', key: record.streamId, label: `${record.metadata.org}:${deployment} succeeded`, org: record.metadata.org, deployment, record };
  }
  if (record.type === TRIGGER_OCCASION_EVENTS.scheduled) {
    const stream = parseTriggerOccasionStreamId(record.streamId);
    const { occasion, dueTime } = record.data as { occasion?: unknown; dueTime?: unknown };
    if (!stream || typeof occasion !== 'string' || typeof dueTime !== 'string') return null;
    // Keyed by occasion: timers wait side by side, not one behind another.
    return { kind: 'due', key: `${record.streamId}|${occasion}`, label: `${stream.org}:${stream.trigger} for ${occasion}`, org: stream.org, trigger: stream.trigger, occasion, dueTime };
  }
  return null;
}
