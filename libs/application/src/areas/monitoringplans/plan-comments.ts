/**
 * Comments on a plan's pull request (rules 1 and 2) and the author's chat DM seam. Posting is
 * best-effort: a code host that cannot post answers an empty commentUrl, and nothing is recorded.
 */
import { monitoringPlanDecider, type PlanCommand } from '@svc/domain/monitoringplans/monitoring-plan.decider';
import { monitoringPlanSpec } from '@svc/domain/monitoringplans/monitoring-plan.resource';
import type { Actor } from '@svc/domain/shared/decider';
import { notFound } from '@svc/domain/shared/domain-error';
import { resourceStreamId, type ResourceEvent, type ResourceState } from '@svc/domain/shared/resource';
import { CodeHostError, type CodeHost, type PullRequestComment } from '@svc/infrastructure/integrations/codehost/codehost.port';
import type { Doc, ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import type { CommandSender } from '../../commands/command-sender';
import { DecideAndAppend } from '../../commands/decide-and-append';
import type { CodeHosts } from '../../integrations/code-hosts';
import { PLANS } from './plans';

/**
 * The seam for rule 1's direct message: the plan's author (their code-host login and id) gets the
 * same Markdown in a chat DM when their code-host and chat accounts are linked and change-monitor DMs
 * are enabled. The chat port and the personal setup (ChangeMonitorNotificationsService) are another
 * area's (the api binds a notifier over its DM seam, sendChangeMonitorDm). Best-effort: a notifier
 * never throws to its caller (the comment has its own outcome).
 */
export interface PlanAuthorNotifier {
  notify(org: string, author: { login: string; id: string; repository: string; plan: string }, markdown: string): Promise<'sent' | 'not-linked' | 'disabled' | 'unavailable'>;
}

export const inProgressBody = (plan: string): string =>
  `:hourglass: A monitoring plan for this pull request is being written (${plan}). This comment is updated in place when it is published.`;

export class PlanComments {
  constructor(
    private readonly bus: CommandSender,
    private readonly reads: ReadStore,
    private readonly codeHosts: Pick<CodeHosts, 'hostFor'>,
    private readonly notifier: PlanAuthorNotifier,
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  /** Rule 1: publishes the Markdown on the pull request (editing the placeholder in place when there is one) and DMs the author. */
  async postPlanComment(actor: Actor, name: string, markdown: string): Promise<{ commentUrl: string; dm: string }> {
    const plan = await this.plan(actor.org, name);
    const origin = (plan.origin ?? {}) as Record<string, unknown>;
    const [repository, number, placeholder] = [String(origin.repository ?? ''), Number(origin.prNumber), origin.prInProgressCommentId];
    const [comment, dm] = await Promise.all([
      this.bestEffort(actor.org, repository, async (host) => {
        if (typeof placeholder === 'string' && placeholder !== '') {
          try {
            return await host.editComment(repository, placeholder, markdown);
          } catch (error) {
            // The placeholder was deleted on the host: publish as a new comment.
            if (!(error instanceof CodeHostError && error.code === 'NOT_FOUND')) throw error;
          }
        }
        return host.postComment(repository, number, markdown);
      }),
      this.notifier
        .notify(actor.org, { login: String(origin.prAuthorCodehostLogin ?? ''), id: String(origin.prAuthorCodehostUserId ?? ''), repository, plan: name }, markdown)
        .catch(() => 'unavailable' as const),
    ]);
    return { commentUrl: comment?.url ?? '', dm };
  }

  /** Rule 2: the placeholder, its id recorded on the plan (once: a second call edits the same comment). */
  async postInProgressComment(actor: Actor, name: string, projection?: string): Promise<{ commentUrl: string }> {
    const plan = await this.plan(actor.org, name);
    const origin = (plan.origin ?? {}) as Record<string, unknown>;
    const [repository, number, recorded] = [String(origin.repository ?? ''), Number(origin.prNumber), origin.prInProgressCommentId];
    const body = inProgressBody(name);
    const comment = await this.bestEffort(actor.org, repository, async (host) => {
      if (typeof recorded === 'string' && recorded !== '') {
        try {
          return await host.editComment(repository, recorded, body);
        } catch (error) {
          if (!(error instanceof CodeHostError && error.code === 'NOT_FOUND')) throw error;
        }
      }
      return host.postComment(repository, number, body);
    });
    if (!comment) return { commentUrl: '' };
    const command: PlanCommand = { type: 'RecordInProgressComment', actor, name, commentId: comment.id };
    await this.bus.execute(
      new DecideAndAppend<ResourceState, PlanCommand, ResourceEvent>(
        { decider: monitoringPlanDecider, streamId: resourceStreamId(monitoringPlanSpec, actor.org, name), command, context: { actor } },
        projection,
      ),
    );
    return { commentUrl: comment.url };
  }

  private async plan(org: string, name: string): Promise<Doc> {
    const plan = await this.reads.collection(PLANS).findOne({ _org: org, name });
    if (!plan) throw notFound(`monitoring plan '${name}' not found`);
    return plan;
  }

  /** The host's answer, or null when no host has the repository or the host cannot post (logged, never thrown). */
  private async bestEffort(org: string, repository: string, post: (host: CodeHost) => Promise<PullRequestComment>): Promise<PullRequestComment | null> {
    try {
      const host = await this.codeHosts.hostFor(org, repository);
      if (!host) return null;
      return await post(host);
    } catch (error) {
      this.log(`monitoring plans: a comment on ${repository} could not be posted: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    }
  }
}
