import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { noteSpec } from '@svc/domain/notes/note.resource';
import type { Actor } from '@svc/domain/shared/decider';
import { resourceStreamId } from '@svc/domain/shared/resource';
import { resourceDecider } from '@svc/domain/shared/resource.decider';
import { CommandService } from '@svc/infrastructure/commands/command-service';
import { SqliteEventStore } from '@svc/infrastructure/event-store/sqlite-event-store';
import { localCommandBus } from './command-sender';
import { DecideAndAppend } from './decide-and-append';

describe('localCommandBus (the CLI\'s command path)', () => {
  let dir: string;
  let store: SqliteEventStore;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bus-'));
    store = new SqliteEventStore({ file: path.join(dir, 'events.db') });
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const actor: Actor = { org: 'acme', actor: 'operator-cli', subject: 'operator-cli', permissions: [], now: '2026-01-01T00:00:00.000Z' };
  const create = (projection?: string) =>
    new DecideAndAppend(
      { decider: resourceDecider(noteSpec), streamId: resourceStreamId(noteSpec, 'acme', 'notes/n1'), command: { type: 'Create', actor, id: 'n1', resource: { displayName: 'N' } }, context: { actor }, create: true },
      projection,
    );

  it('sends a command through the same handler as the api and answers once it is appended', async () => {
    const handled = await localCommandBus(new CommandService(store)).execute(create());
    expect(handled.events.map((e) => e.type)).toEqual(['NoteCreated']);
    expect((await store.readStream(resourceStreamId(noteSpec, 'acme', 'notes/n1'))).map((e) => e.type)).toEqual(['NoteCreated']);
  });

  it('refuses to wait for a projection (no projector need run), rather than answer without read-your-writes', async () => {
    await expect(localCommandBus(new CommandService(store)).execute(create('notes'))).rejects.toThrow('does not wait for projections');
    expect(await store.readStream(resourceStreamId(noteSpec, 'acme', 'notes/n1'))).toEqual([]);
  });
});
