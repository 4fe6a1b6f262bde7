/**
 * Issues linked to monitoring plans (rules 5 and 6), on the shared reactor runner (checkpoint
 * `reactor:plan-issues`): every plan event carries the plan after it, and for each issue in its
 * relatedResources the reactor records the pull request on the issue (IssueFixLinked) and, once the
 * plan has a monitored deployment, moves an actionable issue to ISSUE_WORKFLOW_STATE_VERIFYING_FIX.
 * The issue's decider changes nothing it already has, so redeliveries and replays append nothing.
 * One append per command: the plan's command appended the link, this reactor the issue's side.
 */
import { FIX_LINKED, issueSpec } from '@svc/domain/issues/issue.resource';
import { monitoringPlanSpec, PLAN_EVENTS } from '@svc/domain/monitoringplans/monitoring-plan.resource';
import { DomainError } from '@svc/domain/shared/domain-error';
import { resourceStreamId, type Resource } from '@svc/domain/shared/resource';
import { resourceDecider } from '@svc/domain/shared/resource.decider';
import type { RecordedEvent } from '@svc/infrastructure/event-store/event-store.port';
import type { ReactorJob } from '@svc/infrastructure/reactors/event-reactor';
import type { CommandSender } from '../../commands/command-sender';
import { DecideAndAppend } from '../../commands/decide-and-append';
import type { Reactor } from '../../reactors/reactor';

const issueDecider = resourceDecider(issueSpec);
const PLAN_STREAMS = resourceStreamId(monitoringPlanSpec, '', '').slice(0, -1);
const LINKING = new Set<string>([PLAN_EVENTS.created, PLAN_EVENTS.pullRequestRecorded, PLAN_EVENTS.activated]);
/** The reactor's identity on the events it appends. */
export const PLAN_REACTOR_ACTOR = 'monitoring-plans';

type LinkJob = ReactorJob & { org: string; plan: Resource; eventId: string };

/** What the plan asks of each linked issue: the pull request, and whether it has deployed. */
export function issueLinks(plan: Resource): Array<{ issue: string; pullRequest: string; promote: boolean }> {
  const origin = (plan.origin ?? {}) as { prUrl?: unknown };
  const pullRequest = typeof origin.prUrl === 'string' ? origin.prUrl : '';
  if (pullRequest === '') return [];
  const promote = Array.isArray(plan.deployments) && plan.deployments.length > 0;
  const related = Array.isArray(plan.relatedResources) ? plan.relatedResources : [];
  return related.filter((r): r is string => typeof r === 'string' && r.startsWith('issues/')).map((issue) => ({ issue, pullRequest, promote }));
}

export const planIssuesReactor: Reactor = {
  name: 'plan-issues',
  drivenBy: 'events',
  create: ({ bus, follow }) => ({ runner: follow<LinkJob>({ select, run: (job) => link(bus, job) }, { concurrency: 2 }) }),
};

function select(record: RecordedEvent): LinkJob | null {
  if (!record.streamId.startsWith(PLAN_STREAMS) || !LINKING.has(record.type)) return null;
  const data = record.data as { resource?: Resource; snapshot?: Resource };
  const plan = record.type === PLAN_EVENTS.created ? data.resource : data.snapshot;
  if (!plan) return null;
  return { key: record.streamId, label: `${record.metadata.org}:${plan.name} ${record.type}`, org: record.metadata.org, plan, eventId: record.id };
}

async function link(bus: CommandSender, job: LinkJob): Promise<string> {
  const links = issueLinks(job.plan);
  let changed = 0;
  for (const { issue, pullRequest, promote } of links) {
    const actor = { org: job.org, actor: PLAN_REACTOR_ACTOR, subject: job.plan.name, permissions: [], now: new Date().toISOString() };
    try {
      const handled = await bus.execute(
        new DecideAndAppend({
          decider: issueDecider,
          streamId: resourceStreamId(issueSpec, job.org, issue),
          command: { type: 'Act', action: FIX_LINKED, actor, name: issue, input: { pullRequest, promote } },
          context: { actor, causationId: job.eventId },
        }),
      );
      if (handled.events.length > 0) changed++;
    } catch (error) {
      // An issue deleted since it was linked has nothing to record.
      if (!(error instanceof DomainError && error.code === 'NOT_FOUND')) throw error;
    }
  }
  return `${links.length} linked issue(s), ${changed} changed`;
}
