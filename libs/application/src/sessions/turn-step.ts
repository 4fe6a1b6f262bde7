/**
 * The turn → commands step of the agent runtime, pure: what a requested turn sees of its session,
 * whether it still needs running, the command that marks it started, and the command that commits its
 * answer. TurnRunner (turn-runner.ts) is the thin executor: it reads the session's log, calls the
 * runtime, and sends these commands through the bus. Tested given / when / then in turn-step.spec.ts.
 */
import { ACTIVITY_TYPE, type AnyMessage, SESSION_EVENTS, type SessionEvent, type SessionResource } from '@svc/contracts/sessions/session.events';
import type { Actor } from '@svc/domain/shared/decider';
import { type SessionCommand, sessionDecider, type SessionState } from '@svc/domain/sessions/session.decider';
import { type Activity, RuntimeFault, type RuntimeSessionSettings, type TurnResult } from '@svc/infrastructure/integrations/agent-runtime/agent-runtime.port';

/** A session command of the turn, with the request id that makes it idempotent. */
export interface TurnCommand {
  command: SessionCommand;
  requestId: string;
}

/** What a turn sees of its session: the folded state, the runtime's settings, the messages and the pending input. */
export interface TurnView {
  state: SessionState;
  settings: RuntimeSessionSettings;
  messages: Activity[];
  pending: Activity[];
}

/** The session's log (upcast), as the turn `turnId` sees it. */
export function turnView(events: Iterable<SessionEvent>, turnId: string): TurnView {
  let state: SessionState = sessionDecider.initialState();
  let resource: Partial<SessionResource> = {};
  let throughOffset = Number.POSITIVE_INFINITY;
  let fromOffset = 0;
  let found = false;
  const written: Array<{ offset: number; author: string; message: AnyMessage }> = [];
  for (const event of events) {
    state = sessionDecider.evolve(state, event);
    if (event.type === SESSION_EVENTS.created) resource = event.data.resource;
    if (event.type === SESSION_EVENTS.turnRequested && !found) {
      // Turns are requested in log order: this one answers what came after the previous one's checkpoint.
      if (event.data.turnId === turnId) [found, throughOffset] = [true, event.data.throughOffset];
      else fromOffset = event.data.throughOffset;
    }
    if (event.type === SESSION_EVENTS.messagesWritten) {
      event.data.messages.forEach((message, i) => written.push({ offset: event.data.firstOffset + i, author: event.data.author, message }));
    }
  }
  // Provisional user messages written after this turn's checkpoint wait for a later turn.
  const messages = written.filter((w) => w.offset < throughOffset || w.author === 'runtime').map((w) => activityOf(w.message));
  const pending = written.filter((w) => w.author === 'user' && w.offset >= fromOffset && w.offset < throughOffset).map((w) => activityOf(w.message));
  return { state, settings: settingsOf(resource), messages, pending };
}

/**
 * Before the runtime: a turn no longer open was completed (by an earlier attempt, another process):
 * nothing to run. An open one not yet started is marked started first (StartTurn, request id
 * `<turn>-start`), so the session shows it running.
 */
export function turnStart(state: SessionState, turnId: string, actor: Actor): 'already-completed' | { start: TurnCommand | null } {
  if (!state.openTurns.includes(turnId)) return 'already-completed';
  if (state.startedTurns.includes(turnId)) return { start: null };
  return { start: { command: { type: 'StartTurn', actor, turnId }, requestId: `${turnId}-start` } };
}

/**
 * A runtime failure that retrying cannot help (a refused key, a provider not configured) is answered
 * in the session instead; null for any other failure, which the reactor retries.
 */
export function failureAnswer(error: unknown): TurnResult | null {
  if (!(error instanceof RuntimeFault) || error.retryable) return null;
  return { activities: [{ assistant: { text: { text: `The agent runtime could not answer: ${error.message}` } } }] };
}

/** After the runtime: CompleteTurn with its activities (as Anys of the type host) and conclusion; the turn id is the request id. */
export function turnAnswer(result: TurnResult, turnId: string, typeHost: string, actor: Actor): TurnCommand {
  const messages: AnyMessage[] = result.activities.map((activity) => ({ '@type': `${typeHost}/${ACTIVITY_TYPE}`, ...activity }));
  return { command: { type: 'CompleteTurn', actor, turnId, messages, conclusion: result.conclusion?.done }, requestId: turnId };
}

function activityOf(message: AnyMessage): Activity {
  const { '@type': _type, ...activity } = message;
  return activity as unknown as Activity;
}

function settingsOf(resource: Partial<SessionResource>): RuntimeSessionSettings {
  const effort = resource.compatReasoningEffort;
  return {
    dryRun: resource.dryRun === true,
    // dry_run forces incognito (the session stores both; this holds for sessions stored otherwise too).
    incognito: resource.incognito === true || resource.dryRun === true,
    automated: resource.automated === true,
    ...(resource.compatProvider ? { compatProvider: resource.compatProvider } : {}),
    ...(resource.compatModel ? { compatModel: resource.compatModel } : {}),
    ...(effort === 'low' || effort === 'medium' || effort === 'high' ? { compatReasoningEffort: effort } : {}),
    ...(resource.mockTime ? { mockTime: resource.mockTime } : {}),
  };
}
