/**
 * The agent runtime as a reactor: runs a turn for every SessionTurnRequested, on the shared reactor
 * runner (its own checkpoint `reactor:agent-runtime`, never in the projections' batch, so a slow model
 * delays no read model). Turns of different sessions run concurrently, a session's turns one after
 * another. A failing turn (store down, model rate-limited) is retried with backoff forever; only a
 * turn the domain refuses for good is parked. The checkpoint never passes a turn still running: after
 * a crash the turn is delivered again, and the turn runner's idempotency (the turn id) finds any
 * result already committed. The ephemeral notifications of turns go out on the process's one
 * notification bus.
 */
import { SESSION_EVENTS } from '@svc/contracts/sessions/session.events';
import { positionToString, type RecordedEvent } from '@svc/infrastructure/event-store/event-store.port';
import { createAgentRuntime, loadRuntimeSettings, RuntimeFault } from '@svc/infrastructure/integrations/agent-runtime';
import { SecretBox } from '@svc/infrastructure/config/secrets';
import { SessionSkills } from '@svc/infrastructure/integrations/codehost/session-skills';
import { createToolAdapters } from '@svc/infrastructure/integrations/tools/adapters';
import { loadToolLimits, ToolExecutor } from '@svc/infrastructure/integrations/tools/tool-executor';
import type { ReactorJob } from '@svc/infrastructure/reactors/event-reactor';
import type { Reactor } from '../../reactors/reactor';
import { type TurnRef, TurnRunner } from '../../sessions/turn-runner';

/** The job is the turn itself (plus the runner's key and label), so the runner takes it as it comes. */
type TurnJob = ReactorJob & TurnRef;

export const agentRuntimeReactor: Reactor = {
  name: 'agent-runtime',
  drivenBy: 'events',
  create({ events, bus, folds, reads, notifications, settings, log, follow }) {
    const runtimeSettings = loadRuntimeSettings();
    // Turns stay requested (sessions STATUS_EXECUTING) until a projector with a runtime takes them.
    if (runtimeSettings.runtime === 'off') return { off: 'SVC_AGENT_RUNTIME=off' };
    // Tool calls run here, in the projector: connection secrets are opened per call, never handed to the runtime.
    const limits = loadToolLimits();
    const secrets = SecretBox.fromEnvironment(settings.dataDir);
    const tools = new ToolExecutor({ reads, secrets, adapters: createToolAdapters(limits), limits, log });
    // Every session reads its organization's skills bundles live (cached briefly), as `/run/skills`.
    const skills = new SessionSkills({ reads, secrets, cacheMs: SessionSkills.cacheMsFrom(), log });
    const runtime = createAgentRuntime(runtimeSettings, tools.run);
    const runner = new TurnRunner({
      events,
      bus,
      commands: folds,
      runtime,
      typeHost: settings.typeHost,
      publish: notifications.publish.bind(notifications),
      log,
      skills: skills.forOrganization.bind(skills),
    });
    return {
      runner: follow<TurnJob>(
        {
          select: turnRequested,
          run: runner.run.bind(runner),
          retryAfterMs: (error) => (error instanceof RuntimeFault && error.retryAfterMs ? error.retryAfterMs : undefined),
        },
        { concurrency: runtimeSettings.concurrency },
      ),
      description: `${runtime.kind}, up to ${runtimeSettings.concurrency} turns at once`,
      close: () => tools.close(),
    };
  },
};

/** The turn a SessionTurnRequested asks for, or null for any other event. */
function turnRequested(record: RecordedEvent): TurnJob | null {
  if (record.type !== SESSION_EVENTS.turnRequested || !record.streamId.startsWith('session-')) return null;
  const colon = record.streamId.indexOf(':');
  const turnId = record.data.turnId;
  if (colon < 0 || typeof turnId !== 'string') return null;
  const ref: TurnRef = { org: record.metadata.org, sessionName: record.streamId.slice(colon + 1), turnId, after: positionToString(record.position) };
  return { key: `${ref.org}|${ref.sessionName}`, label: `${ref.sessionName} ${turnId}`, ...ref };
}
