import type { SessionEvent } from '@svc/contracts/sessions/session.events';
import type { Actor } from '@svc/domain/shared/decider';
import { RuntimeFault } from '@svc/infrastructure/integrations/agent-runtime/agent-runtime.port';
import { failureAnswer, turnAnswer, turnStart, turnView } from './turn-runner';

const T = '2026-01-01T00:00:00.000Z';
const ACTIVITY = 'type.googleapis.com/svc.nxagent.v1.Activity';
const actor: Actor = { org: 'acme', actor: 'agents/triage', subject: 'agents/triage', permissions: [], now: T };
const user = (text: string) => ({ '@type': ACTIVITY, user: { text: { text } } });
const e = (type: string, data: Record<string, unknown>) => ({ type, data }) as unknown as SessionEvent;

/** A session with a provisional message, a checkpoint write that requested turn-1, and a later provisional one. */
const history = (...more: SessionEvent[]) => [
  e('SessionCreated', { resource: { name: 'agents/triage/sessions/s1', createTime: T, updateTime: T, dryRun: true, compatReasoningEffort: 'high' } }),
  e('SessionMessagesWritten', { firstOffset: 0, messages: [user('queued')], writeMode: 'WRITE_MODE_PROVISIONAL', author: 'user', writeTime: T }),
  e('SessionMessagesWritten', { firstOffset: 1, messages: [user('go')], writeMode: 'WRITE_MODE_CHECKPOINT', author: 'user', writeTime: T }),
  e('SessionTurnRequested', { turnId: 'turn-1', throughOffset: 2, requestTime: T }),
  e('SessionMessagesWritten', { firstOffset: 2, messages: [user('later')], writeMode: 'WRITE_MODE_PROVISIONAL', author: 'user', writeTime: T }),
  ...more,
];

describe('the turn step (turn → commands)', () => {
  it('given a requested turn, sees what came up to its checkpoint as pending, not what came after', () => {
    const view = turnView(history(), 'turn-1');
    expect(view.pending).toEqual([{ user: { text: { text: 'queued' } } }, { user: { text: { text: 'go' } } }]);
    expect(view.messages).toHaveLength(2);
    // dry_run forces incognito.
    expect(view.settings).toEqual({ dryRun: true, incognito: true, automated: false, compatReasoningEffort: 'high' });
  });

  it('when the turn is open and not started, marks it started first (request id <turn>-start)', () => {
    const { state } = turnView(history(), 'turn-1');
    expect(turnStart(state, 'turn-1', actor)).toEqual({ start: { command: { type: 'StartTurn', actor, turnId: 'turn-1' }, requestId: 'turn-1-start' } });
  });

  it('given the turn started by an earlier attempt, runs it without starting it again', () => {
    const { state } = turnView(history(e('SessionTurnStarted', { turnId: 'turn-1', startTime: T })), 'turn-1');
    expect(turnStart(state, 'turn-1', actor)).toEqual({ start: null });
  });

  it('given the turn completed (by an earlier attempt, another process), sends nothing', () => {
    const done = e('SessionTurnCompleted', { turnId: 'turn-1', completeTime: T });
    const { state } = turnView(history(e('SessionTurnStarted', { turnId: 'turn-1', startTime: T }), done), 'turn-1');
    expect(turnStart(state, 'turn-1', actor)).toBe('already-completed');
  });

  it('then commits the answer as CompleteTurn: activities as Anys of the type host, the conclusion, the turn id as request id', () => {
    const result = { activities: [{ assistant: { text: { text: 'hi' } } }], conclusion: { done: { message: 'done', issues: [] } } };
    expect(turnAnswer(result, 'turn-1', 'type.googleapis.com', actor)).toEqual({
      command: { type: 'CompleteTurn', actor, turnId: 'turn-1', messages: [{ '@type': ACTIVITY, assistant: { text: { text: 'hi' } } }], conclusion: { message: 'done', issues: [] } },
      requestId: 'turn-1',
    });
  });

  it('answers a runtime failure that retrying cannot help in the session, and leaves any other to be retried', () => {
    expect(failureAnswer(new RuntimeFault('no key', false))).toEqual({ activities: [{ assistant: { text: { text: 'The agent runtime could not answer: no key' } } }] });
    expect(failureAnswer(new RuntimeFault('rate limited', true))).toBeNull();
    expect(failureAnswer(new Error('store down'))).toBeNull();
  });
});
