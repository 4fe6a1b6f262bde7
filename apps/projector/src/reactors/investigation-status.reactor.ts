/**
 * Investigation status as a reactor: when an investigator session goes back to STATUS_WAITING (its
 * turn is done), the investigation moves to INVESTIGATION_STATUS_WAITING through the command
 * service. Own checkpoint (`reactor:investigation-status`), outside the projections' batch; the
 * command's request id is derived from the turn, so a redelivery after a crash, or a second
 * projector, appends nothing. A failing command is retried with backoff; one the domain refuses for
 * good is logged and skipped (a session of the investigator with no investigation is not an error).
 */
import { SESSION_EVENTS } from '@svc/contracts/sessions/session.events';
import { INVESTIGATOR_AGENT, investigationOfSession, investigationSpec, STATUS_OBSERVED, WAITING } from '@svc/domain/investigations/investigation.resource';
import { DomainError } from '@svc/domain/shared/domain-error';
import { resourceStreamId } from '@svc/domain/shared/resource';
import { resourceDecider } from '@svc/domain/shared/resource.decider';
import type { CommandSender } from '@svc/application/commands/command-sender';
import { DecideAndAppend } from '@svc/application/commands/decide-and-append';
import { type EventStore, type RecordedEvent, START, type Subscription } from '@svc/infrastructure/event-store/event-store.port';
import { backoffDelay, DEFAULT_BACKOFF, describeError, SupervisedLoop } from '@svc/infrastructure/projection/supervisor';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';

export const INVESTIGATION_STATUS_CHECKPOINT = 'reactor:investigation-status';
const TRANSIENT_CODES = new Set(['ABORTED', 'UNAVAILABLE', 'DEADLINE_EXCEEDED', 'RESOURCE_EXHAUSTED']);
const COMMIT_EVERY = 500;

export class InvestigationStatusReactor {
  private readonly decider = resourceDecider(investigationSpec);
  private readonly loop: SupervisedLoop;
  private readonly abort = new AbortController();
  private subscription: Subscription | null = null;

  constructor(
    private readonly events: EventStore,
    private readonly reads: ReadStore,
    private readonly bus: CommandSender,
    private readonly log: (line: string) => void,
  ) {
    this.loop = new SupervisedLoop({
      body: () => this.follow(),
      interrupt: async () => void (await this.subscription?.unsubscribe()),
      onRetry: ({ attempt, delayMs, error }) => this.log(`investigation status: subscription failed (attempt ${attempt}), again in ${delayMs} ms: ${describeError(error)}`),
    });
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop.stop();
  }

  private async follow(): Promise<void> {
    const after = (await this.reads.getCheckpoint(INVESTIGATION_STATUS_CHECKPOINT)) ?? START;
    this.subscription = this.events.subscribeToAll({ after, latency: 'relaxed' });
    let passed = 0;
    try {
      for await (const record of this.subscription) {
        const observed = sessionWaiting(record);
        if (observed) await this.observe(record, observed);
        // Commit after each observation (rare) and every so many other events.
        if (observed || ++passed >= COMMIT_EVERY) {
          await this.reads.commit({ checkpoint: INVESTIGATION_STATUS_CHECKPOINT, position: record.position, ops: [] });
          passed = 0;
        }
      }
    } finally {
      await this.subscription.unsubscribe();
      this.subscription = null;
    }
  }

  /** Moves the investigation to WAITING; retried until done, skipped when refused for good. */
  private async observe(record: RecordedEvent, observed: { org: string; investigation: string; turnId: string }): Promise<void> {
    const { org, investigation, turnId } = observed;
    const actor = { org, actor: INVESTIGATOR_AGENT, subject: INVESTIGATOR_AGENT, permissions: [], now: new Date().toISOString() };
    for (let attempt = 1; !this.abort.signal.aborted; attempt++) {
      try {
        await this.bus.execute(
          new DecideAndAppend({
            decider: this.decider,
            streamId: resourceStreamId(investigationSpec, org, investigation),
            command: { type: 'Act', action: STATUS_OBSERVED, actor: { ...actor, now: new Date().toISOString() }, name: investigation, input: { status: WAITING, turnId } },
            context: { actor, requestId: `waiting:${turnId || record.id}`, causationId: record.id },
          }),
        );
        return;
      } catch (error) {
        if (error instanceof DomainError && !TRANSIENT_CODES.has(error.code)) {
          if (error.code !== 'NOT_FOUND') this.log(`investigation status: ${investigation}: ${describeError(error)}; skipped`);
          return;
        }
        const delayMs = backoffDelay(attempt, DEFAULT_BACKOFF);
        this.log(`investigation status: ${investigation}: attempt ${attempt} failed, again in ${delayMs} ms: ${describeError(error)}`);
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    }
  }
}

/** A session of the investigator back to STATUS_WAITING: its organization, investigation and turn. */
function sessionWaiting(record: RecordedEvent): { org: string; investigation: string; turnId: string } | null {
  if (record.type !== SESSION_EVENTS.statusChanged || !record.streamId.startsWith('session-')) return null;
  if (record.data.status !== 'STATUS_WAITING') return null;
  const investigation = investigationOfSession(record.streamId.slice(record.streamId.indexOf(':') + 1));
  if (!investigation) return null;
  return { org: record.metadata.org, investigation, turnId: typeof record.data.turnId === 'string' ? record.data.turnId : '' };
}
