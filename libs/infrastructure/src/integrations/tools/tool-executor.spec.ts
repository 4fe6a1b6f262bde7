import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DomainEvent } from '@svc/domain/shared/decider';
import { connectionsProjection } from '@svc/application/areas/connections/connections.projection';
import { SecretBox, sealSecrets } from '../../config/secrets';
import type { RecordedEvent } from '../../event-store/event-store.port';
import { SqliteReadStore } from '../../read-store';
import type { RuntimeAgent, RuntimeSessionSettings, ToolCall } from '../agent-runtime/agent-runtime.port';
import { DEFAULT_TOOL_LIMITS, type ToolAdapter, type ToolConnection, ToolError } from './tool-adapter.port';
import { connectionOf, loadToolLimits, ToolExecutor } from './tool-executor';

const KEY = Buffer.alloc(32, 7).toString('base64');
const PASSWORD = 'hunter2-the-password';

/** A SQL-type adapter that answers from a script and remembers what it was handed. */
class ScriptedAdapter implements ToolAdapter {
  readonly connectionType = 'CONNECTION_TYPE_SQLDB';
  readonly tools = ['TOOL_SQLDB_QUERY', 'TOOL_SQLDB_LIST_TABLES'];
  calls: Array<{ tool: string; args: Record<string, unknown>; connection: ToolConnection }> = [];
  answer: (args: Record<string, unknown>, connection: ToolConnection) => Promise<Record<string, unknown>> = async () => ({ ok: true });

  run(tool: string, args: Record<string, unknown>, connection: ToolConnection): Promise<Record<string, unknown>> {
    this.calls.push({ tool, args, connection });
    return this.answer(args, connection);
  }

  async close(): Promise<void> {}
}

describe('the tool executor (which connection a call runs on, and what the model is answered)', () => {
  let dir: string;
  let store: SqliteReadStore;
  let adapter: ScriptedAdapter;
  let executor: ToolExecutor;
  const box = () => SecretBox.fromEnvironment('/nonexistent', { SVC_ENCRYPTION_KEY: KEY });

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-tool-executor-'));
    store = new SqliteReadStore({ file: join(dir, 'read.db') });
    const connections = [
      { name: 'connections/warehouse', type: 'CONNECTION_TYPE_SQLDB', details: { sqldb: { host: 'db', password: PASSWORD } } },
      { name: 'connections/ledger', type: 'CONNECTION_TYPE_SQLDB', details: { sqldb: { host: 'ledger', password: '${env:LEDGER_PW}' } }, tools: [{ tool: 'TOOL_SQLDB_LIST_TABLES', enabled: false }] },
      { name: 'connections/slack', type: 'CONNECTION_TYPE_CHAT', details: { chat: { team_id: 'T1' } } },
    ];
    const ops = connections.flatMap(({ name, type, details, tools }, i) => {
      const connection = { name, displayName: name, description: '', connectionType: type, connectionDetails: sealSecrets(details, box()), toolConfigurations: tools ?? [] };
      const event = { type: 'ConnectionConfigured', data: { connection, createTime: '2026-01-01T00:00:00Z' } } as unknown as DomainEvent;
      return connectionsProjection.handle({ event, record: {} as RecordedEvent, org: 'acme', resourceName: name, pos: i + 1 });
    });
    await store.commit({ checkpoint: 'connections', position: { commit: BigInt(ops.length), prepare: BigInt(ops.length) }, ops });
    adapter = new ScriptedAdapter();
    executor = new ToolExecutor({ reads: store, secrets: box(), adapters: [adapter], env: {} });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const agent = (bindings: Array<[string, string[]]>): RuntimeAgent => ({
    name: 'agents/a',
    prompt: '',
    enabledTools: [...new Set(bindings.flatMap(([, tools]) => tools))],
    connections: bindings.map(([name, enabledTools]) => ({ name, enabledTools })),
  });
  const call = (name: string, args: unknown = {}): ToolCall => ({ id: 'c1', name, arguments: typeof args === 'string' ? args : JSON.stringify(args) });
  const execute = async (c: ToolCall, a: RuntimeAgent, settings: Partial<RuntimeSessionSettings> = {}, org = 'acme') => {
    const result = await executor.execute(c, { agent: a, session: { name: 'agents/a/sessions/s', org, settings: { dryRun: false, incognito: false, ...settings } } });
    expect(result.toolCallId).toBe('c1');
    return JSON.parse(result.content) as Record<string, unknown>;
  };

  it('given the only connection offering the tool, when called, then the adapter gets its type section with the password opened, and the arguments without `connection`', async () => {
    const answer = await execute(call('TOOL_SQLDB_QUERY', { sql: 'select 1' }), agent([['connections/warehouse', ['TOOL_SQLDB_QUERY']], ['connections/slack', ['TOOL_CHAT_POST_MESSAGE']]]));
    expect(answer).toEqual({ ok: true });
    expect(adapter.calls).toEqual([{ tool: 'TOOL_SQLDB_QUERY', args: { sql: 'select 1' }, connection: { name: 'connections/warehouse', type: 'CONNECTION_TYPE_SQLDB', details: { host: 'db', password: PASSWORD } } }]);
  });

  it('given two connections offering the tool, when called without `connection`, then it is refused naming both; with `connection` (either spelling) it runs there', async () => {
    const both = agent([['connections/warehouse', ['TOOL_SQLDB_QUERY']], ['connections/ledger', ['TOOL_SQLDB_QUERY']]]);
    expect(await execute(call('TOOL_SQLDB_QUERY', { sql: 'select 1' }), both)).toEqual({
      error: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/enabled on 2 connections \(connections\/warehouse, connections\/ledger\).*"connection" argument/),
    });
    expect(adapter.calls).toHaveLength(0);
    expect(await execute(call('TOOL_SQLDB_QUERY', { sql: 'select 1', connection: 'warehouse' }), both)).toEqual({ ok: true });
    expect(adapter.calls[0].connection.name).toBe('connections/warehouse');
  });

  it('given a `connection` the agent does not bind or has not enabled the tool on, when called, then it is refused and nothing runs', () => {
    const bindings = [{ name: 'connections/warehouse', enabledTools: ['TOOL_SQLDB_QUERY'] }, { name: 'connections/ledger', enabledTools: ['TOOL_SQLDB_LIST_TABLES'] }];
    const refusal = (args: Record<string, unknown>) => {
      try {
        connectionOf('TOOL_SQLDB_QUERY', args, bindings);
      } catch (error) {
        return { code: (error as { code: string }).code, message: (error as Error).message };
      }
      return null;
    };
    expect(refusal({ connection: 'connections/other' })).toEqual({ code: 'INVALID_ARGUMENT', message: expect.stringContaining("no connection 'connections/other'") });
    expect(refusal({ connection: 'ledger' })).toEqual({ code: 'NOT_ENABLED', message: "TOOL_SQLDB_QUERY is not enabled on connection 'connections/ledger'" });
    expect(refusal({ connection: 7 })).toEqual({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('connection name') });
    expect(connectionOf('TOOL_SQLDB_QUERY', {}, bindings).name).toBe('connections/warehouse');
  });

  it('given the runtime rules, when a tool is not enabled or is write-classified in a dry-run or incognito session, then nothing runs', async () => {
    expect(await execute(call('TOOL_SQLDB_LIST_TABLES'), agent([['connections/warehouse', ['TOOL_SQLDB_QUERY']]]))).toEqual({ error: 'NOT_ENABLED', message: 'TOOL_SQLDB_LIST_TABLES is not enabled for this agent' });
    const poster = agent([['connections/slack', ['TOOL_CHAT_POST_MESSAGE']]]);
    expect(await execute(call('TOOL_CHAT_POST_MESSAGE'), poster, { dryRun: true, incognito: true })).toMatchObject({ stubbed: true, message: expect.stringContaining('a dry-run session') });
    expect(await execute(call('TOOL_CHAT_POST_MESSAGE'), poster, { incognito: true })).toMatchObject({ stubbed: true, message: expect.stringContaining('an incognito session') });
    // In an ordinary session it would run, but this executor has no chat adapter.
    expect(await execute(call('TOOL_CHAT_POST_MESSAGE'), poster)).toEqual({ error: 'UNAVAILABLE', message: expect.stringContaining('no executor for TOOL_CHAT_POST_MESSAGE on CONNECTION_TYPE_CHAT') });
    expect(adapter.calls).toHaveLength(0);
  });

  it('given a connection that switches the tool off, is missing in this organization, or has a secret that cannot be opened, when called, then the answer says so', async () => {
    const ledger = agent([['connections/ledger', ['TOOL_SQLDB_LIST_TABLES', 'TOOL_SQLDB_QUERY']]]);
    expect(await execute(call('TOOL_SQLDB_LIST_TABLES'), ledger)).toEqual({ error: 'NOT_ENABLED', message: expect.stringContaining('switched off on connection') });
    expect(await execute(call('TOOL_SQLDB_QUERY', { sql: 'select 1' }), ledger)).toEqual({
      error: 'FAILED_PRECONDITION',
      message: "the credentials of connection 'connections/ledger' are not available: environment variable LEDGER_PW is not set",
    });
    expect(await execute(call('TOOL_SQLDB_QUERY', { sql: 'select 1' }), agent([['connections/warehouse', ['TOOL_SQLDB_QUERY']]]), {}, 'globex')).toEqual({
      error: 'FAILED_PRECONDITION',
      message: "connection 'connections/warehouse' is not configured in this organization",
    });
    expect(adapter.calls).toHaveLength(0);
  });

  it('given arguments that are not a JSON object, when called, then INVALID_ARGUMENT; empty arguments are an empty object', async () => {
    const warehouse = agent([['connections/warehouse', ['TOOL_SQLDB_QUERY']]]);
    expect(await execute(call('TOOL_SQLDB_QUERY', 'select 1'), warehouse)).toEqual({ error: 'INVALID_ARGUMENT', message: 'the arguments of TOOL_SQLDB_QUERY are not JSON' });
    expect(await execute(call('TOOL_SQLDB_QUERY', '[1]'), warehouse)).toEqual({ error: 'INVALID_ARGUMENT', message: 'the arguments of TOOL_SQLDB_QUERY must be a JSON object' });
    expect(await execute(call('TOOL_SQLDB_QUERY', ''), warehouse)).toEqual({ ok: true });
    expect(adapter.calls[0].args).toEqual({});
  });

  it('given an adapter that fails, honestly or unexpectedly, when called, then the answer is an error result without the password, never a throw', async () => {
    const warehouse = agent([['connections/warehouse', ['TOOL_SQLDB_QUERY']]]);
    adapter.answer = async () => {
      throw new ToolError('PERMISSION_DENIED', 'the tool runs read-only');
    };
    expect(await execute(call('TOOL_SQLDB_QUERY', { sql: 'update t set x = 1' }), warehouse)).toEqual({ error: 'PERMISSION_DENIED', message: 'the tool runs read-only' });
    adapter.answer = async (_args, connection) => {
      throw new Error(`driver exploded near password=${String(connection.details.password)}`);
    };
    const unexpected = await executor.execute(call('TOOL_SQLDB_QUERY', { sql: 'select 1' }), { agent: warehouse, session: { name: 's', org: 'acme', settings: { dryRun: false, incognito: false } } });
    expect(JSON.parse(unexpected.content)).toEqual({ error: 'INTERNAL', message: 'TOOL_SQLDB_QUERY failed unexpectedly: driver exploded near password=[redacted]' });
    // Even a result that quotes the password (a query selecting it) does not carry it.
    adapter.answer = async (_args, connection) => ({ rows: [[connection.details.password]] });
    const quoted = await executor.execute(call('TOOL_SQLDB_QUERY', { sql: 'select 1' }), { agent: warehouse, session: { name: 's', org: 'acme', settings: { dryRun: false, incognito: false } } });
    expect(quoted.content).not.toContain(PASSWORD);
    expect(JSON.parse(quoted.content)).toEqual({ rows: [['[redacted]']] });
  });

  it('given an adapter that never answers, when called, then the executor answers DEADLINE_EXCEEDED after the timeout and its grace', async () => {
    jest.useFakeTimers();
    try {
      executor = new ToolExecutor({ reads: store, secrets: box(), adapters: [adapter], env: {}, limits: { ...DEFAULT_TOOL_LIMITS, timeoutMs: 100 } });
      adapter.answer = () => new Promise(() => undefined);
      const pending = executor.execute(call('TOOL_SQLDB_QUERY', { sql: 'select 1' }), {
        agent: agent([['connections/warehouse', ['TOOL_SQLDB_QUERY']]]),
        session: { name: 's', org: 'acme', settings: { dryRun: false, incognito: false } },
      });
      await jest.advanceTimersByTimeAsync(5_200);
      expect(JSON.parse((await pending).content)).toEqual({ error: 'DEADLINE_EXCEEDED', message: 'no answer within 100 ms' });
    } finally {
      jest.useRealTimers();
    }
  });

  it('reads its limits from the environment, refusing a value that is not a positive integer', () => {
    expect(loadToolLimits({})).toEqual(DEFAULT_TOOL_LIMITS);
    expect(loadToolLimits({ SVC_TOOL_TIMEOUT_MS: '500', SVC_TOOL_MAX_ROWS: '10', SVC_TOOL_MAX_BYTES: '2048' })).toMatchObject({ timeoutMs: 500, maxRows: 10, maxBytes: 2048 });
    expect(() => loadToolLimits({ SVC_TOOL_MAX_ROWS: '0' })).toThrow(/SVC_TOOL_MAX_ROWS must be a positive integer/);
  });
});
