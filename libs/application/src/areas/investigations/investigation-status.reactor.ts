/**
 * Investigation status as a reactor: when an investigator session goes back to STATUS_WAITING (its
 * turn is done), the investigation moves to INVESTIGATION_STATUS_WAITING through the command bus, on
 * the shared reactor runner (own checkpoint `reactor:investigation-status`, outside the projections'
 * batch). The command's request id is derived from the turn, so a redelivery after a crash, or a
 * second projector, appends nothing. A failing command is retried with backoff; one the domain
 * refuses for good is logged and skipped rather than parked (a session of the investigator with no
 * investigation is not an error). One at a time, in log order.
 */
import { SESSION_EVENTS } from '@svc/contracts/sessions/session.events';
import { INVESTIGATOR_AGENT, investigationOfSession, investigationSpec, STATUS_OBSERVED, WAITING } from '@svc/domain/investigations/investigation.resource';
import { resourceStreamId } from '@svc/domain/shared/resource';
import { resourceDecider } from '@svc/domain/shared/resource.decider';
import type { RecordedEvent } from '@svc/infrastructure/event-store/event-store.port';
import { type ReactorJob, refusedForGood } from '@svc/infrastructure/reactors/event-reactor';
import { describeError } from '@svc/infrastructure/projection/supervisor';
import type { CommandSender } from '../../commands/command-sender';
import { DecideAndAppend } from '../../commands/decide-and-append';
import type { Reactor } from '../../reactors/reactor';

type WaitingJob = ReactorJob & { org: string; investigation: string; turnId: string; eventId: string };

const investigationDecider = resourceDecider(investigationSpec);

export const investigationStatusReactor: Reactor = {
  name: 'investigation-status',
  drivenBy: 'events',
  create: ({ bus, follow }) => ({ runner: follow<WaitingJob>({ select: sessionWaiting, run: (job) => observe(bus, job) }, { concurrency: 1 }) }),
};

/** Moves the investigation to WAITING; skipped (not parked) when the domain refuses it for good. */
async function observe(bus: CommandSender, { org, investigation, turnId, eventId }: WaitingJob): Promise<string> {
  const actor = { org, actor: INVESTIGATOR_AGENT, subject: INVESTIGATOR_AGENT, permissions: [], now: new Date().toISOString() };
  try {
    await bus.execute(
      new DecideAndAppend({
        decider: investigationDecider,
        streamId: resourceStreamId(investigationSpec, org, investigation),
        command: { type: 'Act', action: STATUS_OBSERVED, actor: { ...actor, now: new Date().toISOString() }, name: investigation, input: { status: WAITING, turnId } },
        context: { actor, requestId: `waiting:${turnId || eventId}`, causationId: eventId },
      }),
    );
    return 'waiting';
  } catch (error) {
    if (!refusedForGood(error)) throw error;
    return error.code === 'NOT_FOUND' ? 'no investigation' : `${describeError(error)}; skipped`;
  }
}

/** A session of the investigator back to STATUS_WAITING: its organization, investigation and turn. */
function sessionWaiting(record: RecordedEvent): WaitingJob | null {
  if (record.type !== SESSION_EVENTS.statusChanged || !record.streamId.startsWith('session-')) return null;
  if (record.data.status !== 'STATUS_WAITING') return null;
  const investigation = investigationOfSession(record.streamId.slice(record.streamId.indexOf(':') + 1));
  if (!investigation) return null;
  const org = record.metadata.org;
  const turnId = typeof record.data.turnId === 'string' ? record.data.turnId : '';
  return { key: `${org}|${investigation}`, label: `${org}:${investigation} ${turnId || record.id}`, org, investigation, turnId, eventId: record.id };
}
