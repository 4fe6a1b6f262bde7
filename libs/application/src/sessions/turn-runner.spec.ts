import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sessionStreamId } from '@svc/contracts/sessions/session.events';
import { CommandService } from '@svc/infrastructure/commands/command-service';
import type { EventMetadata } from '@svc/infrastructure/event-store/event-store.port';
import { SqliteEventStore } from '@svc/infrastructure/event-store/sqlite-event-store';
import type { AgentRuntime, EphemeralNotification, TurnInput } from '@svc/infrastructure/integrations/agent-runtime/agent-runtime.port';
import { RuntimeFault } from '@svc/infrastructure/integrations/agent-runtime/agent-runtime.port';
import { BuiltinRuntime } from '@svc/infrastructure/integrations/agent-runtime/builtin-runtime';
import { localCommandBus } from '../commands/command-sender';
import { TurnRunner } from './turn-runner';

const ACTIVITY = 'type.googleapis.com/svc.nxagent.v1.Activity';
const SESSION = 'agents/triage/sessions/s1';
const meta: EventMetadata = { org: 'acme', actor: 'users/alice', subject: 'users/alice', correlationId: 'c', causationId: 'c', occurredAt: '2026-01-01T00:00:00.000Z', schemaVersion: 1 };
const user = (text: string) => ({ '@type': ACTIVITY, user: { text: { text } } });

/** Counts the turns it runs and answers like the built-in runtime, or fails as told. */
class CountingRuntime implements AgentRuntime {
  readonly kind = 'counting';
  turns: TurnInput[] = [];
  fail: RuntimeFault | null = null;
  async runTurn(input: TurnInput, emit: (n: EphemeralNotification) => void) {
    this.turns.push(input);
    if (this.fail) throw this.fail;
    return new BuiltinRuntime().runTurn(input, emit);
  }
}

describe('TurnRunner', () => {
  let dir: string;
  let store: SqliteEventStore;
  let runtime: CountingRuntime;
  let published: Array<{ topic: string; notification: Record<string, unknown> }>;
  let runner: TurnRunner;
  const append = (streamId: string, events: Array<{ type: string; data: Record<string, unknown> }>) =>
    store.append(streamId, events.map((e, i) => ({ id: `${streamId}-${e.type}-${i}-${Math.random()}`, ...e, metadata: meta })), 'any');
  const stream = () => store.readStream(sessionStreamId('acme', SESSION));

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turns-'));
    store = new SqliteEventStore({ file: path.join(dir, 'events.db') });
    runtime = new CountingRuntime();
    published = [];
    const commands = new CommandService(store);
    runner = new TurnRunner({
      events: store,
      bus: localCommandBus(commands),
      commands,
      runtime,
      typeHost: 'type.googleapis.com',
      publish: async (_org, topic, notification) => void published.push({ topic, notification }),
    });
    await append('agent-acme:agents/triage', [{ type: 'AgentCreated', data: { resource: { name: 'agents/triage', prompt: 'p', connections: [{ name: 'connections/w', enabledTools: ['TOOL_SQLDB_QUERY'] }] } } }]);
    const t = '2026-01-01T00:00:00.000Z';
    await append(sessionStreamId('acme', SESSION), [
      { type: 'SessionCreated', data: { resource: { name: SESSION, createTime: t, updateTime: t } } },
      { type: 'SessionMessagesWritten', data: { firstOffset: 0, messages: [user('queued')], writeMode: 'WRITE_MODE_PROVISIONAL', author: 'user', writeTime: t } },
      { type: 'SessionMessagesWritten', data: { firstOffset: 1, messages: [user('go')], writeMode: 'WRITE_MODE_CHECKPOINT', author: 'user', writeTime: t } },
      { type: 'SessionTurnRequested', data: { turnId: 'turn-1', throughOffset: 2, requestTime: t } },
      { type: 'SessionStatusChanged', data: { status: 'STATUS_EXECUTING', turnId: 'turn-1', changeTime: t } },
      { type: 'SessionMessagesWritten', data: { firstOffset: 2, messages: [user('later')], writeMode: 'WRITE_MODE_PROVISIONAL', author: 'user', writeTime: t } },
    ]);
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers what the turn covers, commits the reply and returns the session to waiting', async () => {
    expect(await runner.run({ org: 'acme', sessionName: SESSION, turnId: 'turn-1' })).toBe('completed');
    expect(runtime.turns[0].pending).toEqual([{ user: { text: { text: 'queued' } } }, { user: { text: { text: 'go' } } }]);
    // The provisional message written after the checkpoint waits for a later turn.
    expect(runtime.turns[0].messages).toHaveLength(2);
    expect(runtime.turns[0].agent).toEqual({
      name: 'agents/triage',
      prompt: 'p',
      enabledTools: ['TOOL_SQLDB_QUERY'],
      connections: [{ name: 'connections/w', enabledTools: ['TOOL_SQLDB_QUERY'] }],
    });
    const types = (await stream()).map((e) => e.type);
    expect(types.slice(6)).toEqual(['SessionTurnStarted', 'SessionMessagesWritten', 'SessionTurnCompleted', 'SessionStatusChanged']);
    const written = (await stream())[7];
    expect(written.data).toMatchObject({ firstOffset: 3, author: 'runtime', turnId: 'turn-1', messages: [{ '@type': ACTIVITY, assistant: { text: { text: 'You said: queued go' } } }] });
    expect(published.map((p) => p.topic)).toEqual(Array(published.length).fill(SESSION));
    expect(published[0].notification).toEqual({ value: { '@type': 'type.googleapis.com/svc.nxagent.v1.AssistantThinking' } });
    expect(published[1].notification).toEqual({ value: { '@type': 'type.googleapis.com/svc.nxagent.v1.AssistantOutput', seq: 0, text: 'You ' } });
  });

  it('runs a turn once: a second run (a retry, a restart, another process) calls no model and writes nothing', async () => {
    await runner.run({ org: 'acme', sessionName: SESSION, turnId: 'turn-1' });
    const before = (await stream()).length;
    expect(await runner.run({ org: 'acme', sessionName: SESSION, turnId: 'turn-1' })).toBe('already-completed');
    expect(runtime.turns).toHaveLength(1);
    expect((await stream()).length).toBe(before);
  });

  it('redoes a turn that started but never completed (a crash mid-turn), starting it only once', async () => {
    runtime.fail = new RuntimeFault('HTTP 503', true);
    await expect(runner.run({ org: 'acme', sessionName: SESSION, turnId: 'turn-1' })).rejects.toThrow('HTTP 503');
    runtime.fail = null;
    expect(await runner.run({ org: 'acme', sessionName: SESSION, turnId: 'turn-1' })).toBe('completed');
    const types = (await stream()).map((e) => e.type);
    expect(types.filter((t) => t === 'SessionTurnStarted')).toHaveLength(1);
    expect(types.filter((t) => t === 'SessionTurnCompleted')).toHaveLength(1);
  });

  it('answers a fault that retrying cannot fix honestly in the session, and completes the turn', async () => {
    runtime.fail = new RuntimeFault("model provider 'x' is not configured", false);
    expect(await runner.run({ org: 'acme', sessionName: SESSION, turnId: 'turn-1' })).toBe('answered-failure');
    const written = (await stream()).find((e) => e.type === 'SessionMessagesWritten' && e.data.author === 'runtime');
    expect(written?.data.messages).toEqual([
      { '@type': ACTIVITY, assistant: { text: { text: "The agent runtime could not answer: model provider 'x' is not configured" } } },
    ]);
    expect((await stream()).map((e) => e.type)).toContain('SessionTurnCompleted');
  });
});
