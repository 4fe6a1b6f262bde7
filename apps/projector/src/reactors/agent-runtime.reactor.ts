/**
 * The agent runtime as a reactor: runs a turn for every SessionTurnRequested, on the shared reactor
 * runner (its own checkpoint `reactor:agent-runtime`, never in the projections' batch, so a slow model
 * delays no read model). Turns of different sessions run concurrently, a session's turns one after
 * another. A failing turn (store down, model rate-limited) is retried with backoff forever; only a
 * turn the domain refuses for good is parked. The checkpoint never passes a turn still running: after
 * a crash the turn is delivered again, and the turn runner's idempotency (the turn id) finds any
 * result already committed.
 */
import { SESSION_EVENTS } from '@svc/contracts/sessions/session.events';
import { positionToString, type EventStore, type RecordedEvent } from '@svc/infrastructure/event-store/event-store.port';
import { RuntimeFault } from '@svc/infrastructure/integrations/agent-runtime';
import type { TurnRef, TurnRunner } from '@svc/application/sessions/turn-runner';
import type { BackoffOptions } from '@svc/infrastructure/projection/supervisor';
import { EventReactor, type ReactorJob, type ReactorStatus, reactorCheckpoint, reactorStatusKey } from '@svc/infrastructure/reactors/event-reactor';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';

const NAME = 'agent-runtime';
export const AGENT_RUNTIME_CHECKPOINT = reactorCheckpoint(NAME);
/** Meta record with the reactor's progress (turns running, retries, last error). */
export const AGENT_RUNTIME_STATUS_KEY = reactorStatusKey(NAME);

export interface AgentRuntimeReactorOptions {
  concurrency: number;
  backoff?: BackoffOptions;
  log: (line: string) => void;
}

type TurnJob = ReactorJob & { ref: TurnRef };

export class AgentRuntimeReactor {
  private readonly reactor: EventReactor<TurnJob>;

  constructor(events: EventStore, reads: ReadStore, runner: TurnRunner, options: AgentRuntimeReactorOptions) {
    this.reactor = new EventReactor<TurnJob>(
      events,
      reads,
      {
        name: NAME,
        select: turnRequested,
        run: (job, signal) => runner.run(job.ref, signal),
        retryAfterMs: (error) => (error instanceof RuntimeFault && error.retryAfterMs ? error.retryAfterMs : undefined),
      },
      options,
    );
  }

  start(): void {
    this.reactor.start();
  }

  stop(): Promise<void> {
    return this.reactor.stop();
  }

  status(): ReactorStatus {
    return this.reactor.status();
  }
}

/** The turn a SessionTurnRequested asks for, or null for any other event. */
function turnRequested(record: RecordedEvent): TurnJob | null {
  if (record.type !== SESSION_EVENTS.turnRequested || !record.streamId.startsWith('session-')) return null;
  const colon = record.streamId.indexOf(':');
  const turnId = record.data.turnId;
  if (colon < 0 || typeof turnId !== 'string') return null;
  const ref: TurnRef = { org: record.metadata.org, sessionName: record.streamId.slice(colon + 1), turnId, after: positionToString(record.position) };
  return { key: `${ref.org}|${ref.sessionName}`, label: `${ref.sessionName} ${turnId}`, ref };
}
