import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sessionStreamId } from '@svc/contracts/sessions/session.events';
import { triggerOccasionsDecider, type TriggerOccasionCommand, type TriggerOccasionsState } from '@svc/domain/reactors/trigger-occasions.decider';
import type { ResourceState } from '@svc/domain/shared/resource';
import { occasionSessionId } from '@svc/domain/triggers/invocation';
import { CommandService } from '@svc/infrastructure/commands/command-service';
import type { EventMetadata } from '@svc/infrastructure/event-store/event-store.port';
import { SqliteEventStore } from '@svc/infrastructure/event-store/sqlite-event-store';
import { localCommandBus } from '../commands/command-sender';
import { DecideAndAppend } from '../commands/decide-and-append';
import { ClaimSessionName } from '../sessions/start-session';
import { afterRecord, fireOutcome, type Occasion, occasionSession, occasionStep, recordOccasion, scheduleOccasion, sessionKeysOf, TriggerFire, triggerActor } from './trigger-fire';

const TYPE_HOST = 'type.googleapis.com';
const trigger = { org: 'acme', name: 'triggers/nightly', agent: 'agents/triage', displayName: 'Nightly' };
const NOW = new Date('2026-01-01T03:00:05.000Z');
const actor = triggerActor(trigger, NOW);
const occasion: Occasion = { key: 'cron|2026-01-01T03:00:00.000Z', source: 'cron', time: '2026-01-01T03:00:00.000Z', seed: 'Cron trigger triggers/nightly fired' };
const agentOn: ResourceState = { resource: { name: 'agents/triage', state: 'AGENT_STATE_ON' }, deleted: false };
const SESSION_ID = occasionSessionId('acme', 'triggers/nightly', occasion.key);
const SESSION = `agents/triage/sessions/${SESSION_ID}`;
const keys = sessionKeysOf(trigger, occasion.key);

/** The occasion stream after deciding `command` on `given` (the decider's own answer, folded). */
function after(given: TriggerOccasionCommand[], command: TriggerOccasionCommand): TriggerOccasionsState {
  let state = triggerOccasionsDecider.initialState();
  for (const c of [...given, command]) for (const event of triggerOccasionsDecider.decide(c, state) as never[]) state = triggerOccasionsDecider.evolve(state, event);
  return state;
}

describe('the occasion step (occasion → commands)', () => {
  it('derives the session of an occasion once: its ID, its name under the agent, the request id of its claim and creation', () => {
    expect(keys).toEqual({ id: SESSION_ID, name: SESSION, requestId: `invoke|triggers/nightly|${occasion.key}` });
  });

  it('when an occasion comes, records it first on the trigger\'s occasion stream, naming the session it will start', () => {
    const record = recordOccasion(trigger, occasion, keys.name, 'AGENT_STATE_ON', actor);
    expect(record.stream.streamId).toBe('triggerfire-acme:triggers/nightly');
    expect(record.stream.command).toEqual({
      type: 'FireOccasion',
      actor,
      occasion: occasion.key,
      source: 'cron',
      session: SESSION,
      occasionTime: occasion.time,
      cooldownMs: undefined,
      agent: 'agents/triage',
      agentState: 'AGENT_STATE_ON',
    });
    expect(record.stream.context).toEqual({ actor, causationId: occasion.key });
    // A reactor waits for no projection.
    expect(record.projection).toBeUndefined();
  });

  it('given the record, starts the session when it fired, nothing when the agent is off, nothing within a cooldown', () => {
    const fire = (o: Pick<Occasion, 'key' | 'time'> & { cooldownMs?: number }, agentState = 'AGENT_STATE_ON') =>
      recordOccasion(trigger, { ...occasion, ...o }, keys.name, agentState, actor).stream.command;
    expect(afterRecord(after([], fire(occasion)), occasion.key)).toBe('start-session');
    expect(afterRecord(after([], fire(occasion, 'AGENT_STATE_OFF')), occasion.key)).toBe('agent-off');
    const first = { key: 'row|e1/0', time: '2026-01-01T03:00:00.000Z', cooldownMs: 60_000 };
    const second = { key: 'row|e2/0', time: '2026-01-01T03:00:30.000Z', cooldownMs: 60_000 };
    expect(afterRecord(after([fire(first)], fire(second)), second.key)).toBe('cooldown');
    // An occasion that fired before is fired still (a retry): its session is made sure of again.
    expect(afterRecord(after([fire(occasion)], fire(occasion)), occasion.key)).toBe('start-session');
  });

  it('then starts the session with an ID and request id derived from the occasion, the seed as a checkpoint write, and the origin', () => {
    expect(occasionSession(trigger, occasion, keys, agentOn, TYPE_HOST, actor)).toEqual({
      actor,
      requestId: `invoke|triggers/nightly|${occasion.key}`,
      id: SESSION_ID,
      name: SESSION,
      parent: 'agents/triage',
      agent: agentOn.resource,
      settings: { title: `Nightly: ${occasion.key}`, automated: true, origin: { trigger: 'triggers/nightly' }, associatedResources: ['triggers/nightly'] },
      typeHost: TYPE_HOST,
      write: { messages: [{ '@type': `${TYPE_HOST}/svc.nxagent.v1.Activity`, user: { text: { text: occasion.seed } } }], writeMode: 'WRITE_MODE_CHECKPOINT' },
    });
  });

  it('given an agent that is gone (never made, or deleted), starts no session', () => {
    expect(occasionSession(trigger, occasion, keys, { resource: null, deleted: false }, TYPE_HOST, actor)).toBeNull();
    expect(occasionSession(trigger, occasion, keys, { ...agentOn, deleted: true }, TYPE_HOST, actor)).toBeNull();
  });

  it('builds every command of the fire at once: the record, then the session\'s name claim (which checks its creation first) and creation, in order', () => {
    const step = occasionStep(trigger, occasion, agentOn, TYPE_HOST, NOW);
    expect(step.record).toEqual(recordOccasion(trigger, occasion, SESSION, 'AGENT_STATE_ON', actor));
    const [claim, create] = step.session ?? [];
    const requestId = `invoke|triggers/nightly|${occasion.key}`;
    expect(claim).toBeInstanceOf(ClaimSessionName);
    expect((claim as ClaimSessionName).name).toBe(SESSION);
    // The creation the claim checks (a dry run) before claiming: the same command the creation sends.
    const creation = (claim as ClaimSessionName).creation;
    expect(creation).toMatchObject({ streamId: sessionStreamId('acme', SESSION), command: { type: 'CreateSession', id: SESSION_ID }, context: { actor, requestId } });
    expect(creation).not.toHaveProperty('create');
    expect(create).toBeInstanceOf(DecideAndAppend);
    expect((create as DecideAndAppend<unknown, { type: string }, never>).stream).toEqual({ ...creation, create: true });
    expect(step.session).toHaveLength(2);
    // No session when the agent is gone; the record still goes (as fired, and the outcome says why).
    expect(occasionStep(trigger, occasion, { resource: null, deleted: false }, TYPE_HOST, NOW).session).toBeNull();
  });

  it('answers fired for a new record and already-fired for one found', () => {
    expect(fireOutcome({ events: [{}] })).toBe('fired');
    expect(fireOutcome({ events: [] })).toBe('already-fired');
  });

  it('schedules a durable timer on the occasion stream, caused by what it waits for', () => {
    const timer = { occasion: 'post_deploy|deployments/d1', source: 'post_deploy' as const, dueTime: '2026-01-01T04:00:00.000Z', cause: 'deployments/d1' };
    const schedule = scheduleOccasion(trigger, timer, actor);
    expect(schedule.stream.streamId).toBe('triggerfire-acme:triggers/nightly');
    expect(schedule.stream.command).toEqual({ type: 'ScheduleFire', actor, ...timer });
    expect(schedule.stream.context).toEqual({ actor, causationId: 'deployments/d1' });
  });
});

describe('TriggerFire (the executor) on a real event store', () => {
  let dir: string;
  let store: SqliteEventStore;
  let firing: TriggerFire;
  const meta: EventMetadata = { org: 'acme', actor: 'users/alice', subject: 'users/alice', correlationId: 'c', causationId: 'c', occurredAt: '2026-01-01T00:00:00.000Z', schemaVersion: 1 };
  const agentEvent = (type: string, data: Record<string, unknown>) =>
    store.append('agent-acme:agents/triage', [{ id: `${type}-${Math.random()}`, type, data, metadata: meta }], 'any');
  const session = () => store.readStream(sessionStreamId('acme', SESSION));

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fire-'));
    store = new SqliteEventStore({ file: path.join(dir, 'events.db') });
    const commands = new CommandService(store);
    firing = new TriggerFire(localCommandBus(commands), commands, TYPE_HOST, () => NOW);
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const created = { resource: { name: 'agents/triage', createTime: '2026-01-01T00:00:00.000Z', updateTime: '2026-01-01T00:00:00.000Z' } };

  it('fires an occasion once: the record, then the session with its seed; a second attempt finds both', async () => {
    await agentEvent('AgentCreated', created);
    expect(await firing.fire(trigger, occasion)).toBe('fired');
    expect((await session()).map((e) => e.type)).toEqual(expect.arrayContaining(['SessionCreated', 'SessionMessagesWritten', 'SessionTurnRequested']));
    const length = (await session()).length;
    expect(await firing.fire(trigger, occasion)).toBe('already-fired');
    expect(await session()).toHaveLength(length);
    expect((await firing.occasions(trigger)).fired.has(occasion.key)).toBe(true);
  });

  it('records an occasion of an agent that is off as skipped, and starts no session', async () => {
    await agentEvent('AgentCreated', { resource: { ...created.resource, state: 'AGENT_STATE_OFF' } });
    expect(await firing.fire(trigger, occasion)).toBe('agent-off');
    expect((await firing.occasions(trigger)).skipped.has(occasion.key)).toBe(true);
    expect(await session()).toHaveLength(0);
  });

  it('records an occasion of an agent that is gone as fired, without a session (no retry mends it)', async () => {
    await agentEvent('AgentCreated', created);
    await agentEvent('AgentDeleted', { deleteTime: '2026-01-01T01:00:00.000Z' });
    expect(await firing.fire(trigger, occasion)).toBe('agent-gone');
    expect((await firing.occasions(trigger)).fired.has(occasion.key)).toBe(true);
    expect(await session()).toHaveLength(0);
  });
});
