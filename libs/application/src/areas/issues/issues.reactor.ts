/**
 * Issues from concluded sessions, on the shared reactor runner (own checkpoint `reactor:issues`):
 * each `SessionConcluded` with proposed issues becomes one CreateIssue per proposal through the
 * command bus, unless the session is incognito or a dry run. The issue ID derives from the session,
 * the turn and the proposal's index, so a redelivery (a crash, a second projector) finds the issue
 * already there (ALREADY_EXISTS) and creates nothing twice. One job at a time: conclusions are rare
 * and cheap, and their issues then appear in the order sessions concluded.
 */
import { SESSION_EVENTS, type SessionConcludedData } from '@svc/contracts/sessions/session.events';
import { issueSpec, issuesFromConclusion } from '@svc/domain/issues/issue.resource';
import { DomainError } from '@svc/domain/shared/domain-error';
import { resourceStreamId, type Resource } from '@svc/domain/shared/resource';
import { resourceDecider } from '@svc/domain/shared/resource.decider';
import type { EventStore, RecordedEvent } from '@svc/infrastructure/event-store/event-store.port';
import type { ReactorJob } from '@svc/infrastructure/reactors/event-reactor';
import type { CommandSender } from '../../commands/command-sender';
import { DecideAndAppend } from '../../commands/decide-and-append';
import type { Reactor } from '../../reactors/reactor';

type ConclusionJob = ReactorJob & { org: string; session: string; streamId: string; turn: string; data: SessionConcludedData; eventId: string };

const SESSION_CREATED = SESSION_EVENTS.created;
const issueDecider = resourceDecider(issueSpec);

export const issuesReactor: Reactor = {
  name: 'issues',
  drivenBy: 'events',
  create: ({ events, bus, follow }) => ({ runner: follow<ConclusionJob>({ select, run: (job) => createIssues(events, bus, job) }, { concurrency: 1 }) }),
};

function select(record: RecordedEvent): ConclusionJob | null {
  if (record.type !== SESSION_EVENTS.concluded || !record.streamId.startsWith('session-')) return null;
  const data = record.data as unknown as SessionConcludedData;
  if (!Array.isArray(data.done?.issues) || data.done.issues.length === 0) return null;
  const session = record.streamId.slice(record.streamId.indexOf(':') + 1);
  const turn = data.turnId || record.id;
  return { key: record.streamId, label: `${session} ${turn}`, org: record.metadata.org, session, streamId: record.streamId, turn, data, eventId: record.id };
}

async function createIssues(events: EventStore, bus: CommandSender, job: ConclusionJob): Promise<string> {
  // The session's settings are fixed at creation (incognito, dry_run, associated resources, creator).
  const history = await events.readStream(job.streamId, { maxCount: 1 });
  const created = history.find((e) => e.type === SESSION_CREATED);
  if (!created) return 'no session';
  const session = (created.data as { resource: Resource }).resource;
  const issues = issuesFromConclusion(session, job.turn, job.data.done.issues);
  if (issues.length === 0) return session.incognito === true || session.dryRun === true ? 'incognito or dry run: no issues' : 'no issues';
  let made = 0;
  for (const { id, resource } of issues) {
    const now = new Date().toISOString();
    const actor = { org: job.org, actor: job.session, subject: job.session, permissions: [], now };
    try {
      await bus.execute(
        new DecideAndAppend({
          decider: issueDecider,
          streamId: resourceStreamId(issueSpec, job.org, resource.name),
          command: { type: 'Create', actor, id, resource },
          context: { actor, causationId: job.eventId },
          create: true,
        }),
      );
      made++;
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'ALREADY_EXISTS')) throw error;
    }
  }
  return `${made} issue(s) created, ${issues.length - made} already there`;
}
