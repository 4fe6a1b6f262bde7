import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sessionOwnerStreamId, sessionStreamId } from '@svc/contracts/sessions/session.events';
import type { Actor } from '@svc/domain/shared/decider';
import { sessionNameOf } from '@svc/domain/sessions/session.decider';
import { CommandService } from '@svc/infrastructure/commands/command-service';
import { SqliteEventStore } from '@svc/infrastructure/event-store/sqlite-event-store';
import { localCommandBus } from '../commands/command-sender';
import { type SessionStart, startSession } from './start-session';

const TYPE_HOST = 'type.googleapis.com';
const actor: Actor = { org: 'acme', actor: 'users/alice', subject: 'users/alice', permissions: [], now: '2026-01-01T00:00:00.000Z' };
const agent = { name: 'agents/triage', createTime: '2026-01-01T00:00:00.000Z', updateTime: '2026-01-01T00:00:00.000Z' };

describe('startSession: the name claim (checking the creation first), then the creation', () => {
  let dir: string;
  let store: SqliteEventStore;
  let bus: ReturnType<typeof localCommandBus>;
  const start = (id: string, over: Partial<SessionStart> = {}): SessionStart => ({
    actor,
    requestId: `r-${id}`,
    id,
    name: sessionNameOf('agents/triage', id),
    parent: 'agents/triage',
    agent,
    settings: {},
    typeHost: TYPE_HOST,
    ...over,
  });

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'start-session-'));
    store = new SqliteEventStore({ file: path.join(dir, 'events.db') });
    bus = localCommandBus(new CommandService(store));
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('claims the name and starts the stream; a retry with the same request id finds both', async () => {
    const s = start('s1');
    const first = await startSession(bus, s);
    expect(first.events.map((e) => e.type)).toContain('SessionCreated');
    expect((await store.readStream(sessionOwnerStreamId(s.name))).map((e) => e.type)).toEqual(['SessionNameClaimed']);
    const again = await startSession(bus, s);
    expect(again.replayed).toBe(true);
    expect(await store.readStream(sessionOwnerStreamId(s.name))).toHaveLength(1);
  });

  it('a creation its decider refuses claims no name', async () => {
    const s = start('s2', { write: { messages: [], writeMode: 'WRITE_MODE_CHECKPOINT' } });
    await expect(startSession(bus, s)).rejects.toThrow(/messages must not be empty/);
    expect(await store.readStream(sessionOwnerStreamId(s.name))).toHaveLength(0);
    expect(await store.readStream(sessionStreamId('acme', s.name))).toHaveLength(0);
  });
});
