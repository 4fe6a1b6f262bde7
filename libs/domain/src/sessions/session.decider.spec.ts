import type { SessionEvent } from '@svc/contracts/sessions/session.events';
import type { Actor } from '../shared/decider';
import { givenFor } from '../shared/testing';
import { sessionDecider, type SessionCommand } from './session.decider';
import { sessionNameDecider } from './session-name.decider';

const given = givenFor(sessionDecider);
const HOST = 'type.googleapis.com';
const T0 = '2024-01-01T00:00:00.000Z';
const T1 = '2024-01-02T00:00:00.000Z';
const as = (now = T1, org = 'acme'): Actor => ({ org, actor: 'users/alice', subject: 'users/alice', permissions: ['AGENTS_WRITE'], now });
const NAME = 'agents/triage/sessions/s1';
const text = (t: string) => ({ '@type': `${HOST}/svc.nxagent.v1.Activity`, user: { text: { text: t } } });
const agent = { name: 'agents/triage', entryInputs: [{ name: 'service', type: 'STRING', required: true }] };

const createSession = (settings: Record<string, unknown> = {}, extra: Partial<Extract<SessionCommand, { type: 'CreateSession' }>> = {}): SessionCommand => ({
  type: 'CreateSession',
  actor: as(T0),
  id: 's1',
  parent: 'agents/triage',
  settings,
  refs: new Map([['agents/triage', agent]]),
  typeHost: HOST,
  ...extra,
});
const write = (messages: unknown[], writeMode: 'WRITE_MODE_CHECKPOINT' | 'WRITE_MODE_PROVISIONAL' | 'WRITE_MODE_PROVISIONAL_OR_CHECKPOINT' = 'WRITE_MODE_CHECKPOINT'): SessionCommand => ({
  type: 'Write',
  actor: as(),
  name: NAME,
  typeHost: HOST,
  messages,
  writeMode,
});

const created: SessionEvent = {
  type: 'SessionCreated',
  data: { resource: { name: NAME, createdBy: 'users/alice', createTime: T0, updateTime: T0 } },
};
const written = (firstOffset: number, messages: ReturnType<typeof text>[], writeMode: 'WRITE_MODE_CHECKPOINT' | 'WRITE_MODE_PROVISIONAL', extra = {}): SessionEvent => ({
  type: 'SessionMessagesWritten',
  data: { firstOffset, messages, writeMode, author: 'user', writeTime: T1, ...extra },
});
const turn = (offset: number, through: number): SessionEvent[] => [
  { type: 'SessionTurnRequested', data: { turnId: `turn-${offset}`, throughOffset: through, requestTime: T1 } },
];
const executing = (turnId: string): SessionEvent => ({ type: 'SessionStatusChanged', data: { status: 'STATUS_EXECUTING', turnId, changeTime: T1 } });

describe('session decider', () => {
  it('CreateSession starts the stream with the session and its settings; dry_run forces incognito', () => {
    given([]).when(createSession({ dryRun: true, title: 'x' })).thenState((state, events) => {
      expect(events).toHaveLength(1);
      expect(state.resource.resource).toMatchObject({ name: NAME, dryRun: true, incognito: true, title: 'x' });
    });
  });

  it('CreateSession writes initial messages queued (provisional), in order', () => {
    given([])
      .when(createSession({}, { initialMessages: [text('a'), text('b')] }))
      .thenState((state, events) => {
        expect(events[1]).toEqual({ ...written(0, [text('a'), text('b')], 'WRITE_MODE_PROVISIONAL'), data: { ...written(0, [text('a'), text('b')], 'WRITE_MODE_PROVISIONAL').data, writeTime: T0 } });
        expect(events).toHaveLength(2);
        expect(state.length).toBe(2);
        expect(state.status).toBe('STATUS_WAITING');
      });
  });

  it('CreateSession refuses an existing session, bad inputs, and NXL-only settings without NXL', () => {
    given([created]).when(createSession()).thenFails('ALREADY_EXISTS', /already exists/);
    given([]).when(createSession({ bashPrelude: 'x' })).thenFails('INVALID_ARGUMENT', /bash_prelude is only allowed/);
    given([]).when(createSession({ runtime: 'SESSION_RUNTIME_NXL', inputs: {} })).thenFails('INVALID_ARGUMENT', /inputs\.service is required/);
    given([]).when(createSession({ runtime: 'SESSION_RUNTIME_NXL', inputs: { service: { '@type': `${HOST}/google.protobuf.BoolValue`, value: true } } })).thenFails('INVALID_ARGUMENT', /inputs\.service must be an Any/);
    given([]).when(createSession({ compatProvider: 'p' })).thenFails('INVALID_ARGUMENT', /compat_model is required/);
  });

  it('a checkpoint write appends the messages, requests a turn named after its first offset and moves the session to EXECUTING', () => {
    given([created, written(0, [text('q')], 'WRITE_MODE_PROVISIONAL')])
      .when(write([text('go')]))
      .then([written(1, [text('go')], 'WRITE_MODE_CHECKPOINT'), ...turn(1, 2), executing('turn-1')]);
  });

  it('a provisional write only appends', () => {
    given([created]).when(write([text('q')], 'WRITE_MODE_PROVISIONAL')).then([written(0, [text('q')], 'WRITE_MODE_PROVISIONAL')]);
  });

  it('PROVISIONAL_OR_CHECKPOINT is provisional while a turn is open and a checkpoint when idle', () => {
    const busy = [created, written(0, [text('a')], 'WRITE_MODE_CHECKPOINT'), ...turn(0, 1), executing('turn-0')];
    given(busy)
      .when(write([text('b')], 'WRITE_MODE_PROVISIONAL_OR_CHECKPOINT'))
      .then([written(1, [text('b')], 'WRITE_MODE_PROVISIONAL', { requestedWriteMode: 'WRITE_MODE_PROVISIONAL_OR_CHECKPOINT' })]);
    given([created])
      .when(write([text('b')], 'WRITE_MODE_PROVISIONAL_OR_CHECKPOINT'))
      .then([written(0, [text('b')], 'WRITE_MODE_CHECKPOINT', { requestedWriteMode: 'WRITE_MODE_PROVISIONAL_OR_CHECKPOINT' }), ...turn(0, 1), executing('turn-0')]);
  });

  it('Write refuses bad messages by index, an empty list, a missing or deleted session', () => {
    given([created]).when(write([text('a'), { '@type': `${HOST}/svc.nxagent.v1.Activity` }])).thenFails('INVALID_ARGUMENT', /^messages\[1\] must set exactly one of/);
    given([created]).when(write([])).thenFails('INVALID_ARGUMENT', /must not be empty/);
    given([]).when(write([text('a')])).thenFails('NOT_FOUND', /not found/);
    given([created, { type: 'SessionDeleted', data: { deleteTime: T1 } }]).when(write([text('a')])).thenFails('FAILED_PRECONDITION', /deleted/);
  });

  const open = [created, written(0, [text('a')], 'WRITE_MODE_CHECKPOINT'), ...turn(0, 1), executing('turn-0')];
  const reply = { '@type': `${HOST}/svc.nxagent.v1.Activity`, assistant: { text: { text: 'hi' } } };

  it('turns start once and complete once: the completion commits the reply and conclusion, and the session waits again', () => {
    given(open).when({ type: 'StartTurn', actor: as(), turnId: 'turn-0' }).then([{ type: 'SessionTurnStarted', data: { turnId: 'turn-0', startTime: T1 } }]);
    given([...open, { type: 'SessionTurnStarted', data: { turnId: 'turn-0', startTime: T1 } }]).when({ type: 'StartTurn', actor: as(), turnId: 'turn-0' }).thenNothing();
    const done = { message: 'ok', issues: [{ title: 't', description: 'd' }] };
    const completion = given(open).when({ type: 'CompleteTurn', actor: as(), turnId: 'turn-0', messages: [reply], conclusion: done }).then([
      { type: 'SessionMessagesWritten', data: { firstOffset: 1, messages: [reply], writeMode: 'WRITE_MODE_CHECKPOINT', author: 'runtime', turnId: 'turn-0', writeTime: T1 } },
      { type: 'SessionConcluded', data: { done, turnId: 'turn-0', concludeTime: T1 } },
      { type: 'SessionTurnCompleted', data: { turnId: 'turn-0', completeTime: T1 } },
      { type: 'SessionStatusChanged', data: { status: 'STATUS_WAITING', turnId: 'turn-0', changeTime: T1 } },
    ]);
    // A runtime that retries after a crash finds the turn completed: nothing is written twice.
    given([...open, ...completion]).when({ type: 'CompleteTurn', actor: as(), turnId: 'turn-0', messages: [reply] }).thenNothing();
    given(open).when({ type: 'CompleteTurn', actor: as(), turnId: 'turn-7' }).thenFails('FAILED_PRECONDITION', /never requested/);
  });

  it('with a later turn still open, completing the first keeps the session executing', () => {
    const twoTurns = [...open, written(1, [text('b')], 'WRITE_MODE_CHECKPOINT'), ...turn(1, 2)];
    given(twoTurns).when({ type: 'CompleteTurn', actor: as(), turnId: 'turn-0' }).thenState((state, events) => {
      expect(events.map((e) => e.type)).toEqual(['SessionTurnCompleted']);
      expect(state.status).toBe('STATUS_EXECUTING');
      expect(state.openTurns).toEqual(['turn-1']);
    });
  });
});

describe('session name claims', () => {
  const claim = givenFor(sessionNameDecider);
  it('the first organization claiming a name holds it; any later claim is ALREADY_EXISTS', () => {
    const first = claim([]).when({ type: 'ClaimSessionName', actor: as(T0), name: NAME }).then([{ type: 'SessionNameClaimed', data: { org: 'acme', name: NAME, claimTime: T0 } }]);
    claim(first).when({ type: 'ClaimSessionName', actor: as(T1, 'globex'), name: NAME }).thenFails('ALREADY_EXISTS', /already exists/);
  });
});
