/**
 * Event watches over HTTP with the real processes: the organization's events as they commit,
 * filtered, resumed after a disconnect from the log position with nothing skipped or repeated.
 */
import { GINA, Stack, eventually } from './support/harness';
import { SseClient } from './support/sse';

const NOTES = 'svc.notes.v1.NotesService';
const WATCH = '/svc.history.v1.HistoryService/WatchEvents';
const WATCH_RESOURCE = '/svc.history.v1.HistoryService/WatchResource';

interface Watched {
  position: string;
  resource: string;
  collection: string;
  type: string;
  actor: string;
  data: Record<string, unknown>;
}

describe('Event watch', () => {
  let stack: Stack;
  const clients: SseClient[] = [];
  beforeAll(async () => {
    stack = await Stack.start();
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
  });
  afterAll(() => stack.destroy());

  const watch = async (options: Parameters<typeof SseClient.open>[1]) => {
    const client = await SseClient.open(stack.baseUrl, { path: WATCH, ...options });
    clients.push(client);
    return client;
  };
  const note = async (id: string) => expect((await stack.rpc(`${NOTES}/CreateNote`, { note_id: id, note: { display_name: id } })).status).toBe(200);
  const update = async (id: string, text: string) =>
    expect((await stack.rpc(`${NOTES}/UpdateNote`, { note: { name: `notes/${id}`, display_name: text }, update_mask: 'display_name' })).status).toBe(200);
  const watched = (client: SseClient) => client.events.map((e) => e.data as unknown as Watched);

  it('streams events as they commit, filtered, and resumes after a disconnect without gaps or repeats', async () => {
    const filter = 'collection = "notes" AND type = "Note*"';
    const first = await watch({ body: { filter } });
    await note('w1');
    await update('w1', 'w1 again');
    await eventually(async () => (first.events.length >= 2 ? true : undefined));
    expect(watched(first).map((e) => [e.type, e.resource])).toEqual([
      ['NoteCreated', 'notes/w1'],
      ['NoteUpdated', 'notes/w1'],
    ]);
    expect(watched(first)[0]).toMatchObject({ collection: 'notes', actor: 'users/alice', data: { resource: { displayName: 'w1' } } });
    // Each event's SSE id is its log position.
    expect(first.events.map((e) => e.id)).toEqual(watched(first).map((e) => e.position));
    const resumeFrom = first.lastId!;
    await first.close();

    // Missed while disconnected: some match the filter, some do not (a role, another org's note).
    await note('w2');
    expect((await stack.rpc('svc.rbac.v1.RolesService/CreateRole', { role_id: 'unwatched', role: {} })).status).toBe(200);
    expect((await stack.rpc(`${NOTES}/CreateNote`, { note_id: 'globex-note', note: { display_name: 'theirs' } }, GINA)).status).toBe(200);
    await update('w2', 'w2 again');

    const resumed = await watch({ body: { filter }, lastEventId: resumeFrom });
    await note('w3'); // live after the catch-up
    await eventually(async () => (resumed.events.length >= 3 ? true : undefined));
    expect(watched(resumed).map((e) => [e.type, e.resource])).toEqual([
      ['NoteCreated', 'notes/w2'],
      ['NoteUpdated', 'notes/w2'],
      ['NoteCreated', 'notes/w3'],
    ]);
    const positions = [...first.events, ...resumed.events].map((e) => e.id);
    expect(new Set(positions).size).toBe(positions.length);
  });

  it('watches one resource; refuses a bad filter or Last-Event-ID before streaming; shows no sealed secret', async () => {
    const one = await SseClient.open(stack.baseUrl, { path: WATCH_RESOURCE, body: { name: 'notes/solo' } });
    clients.push(one);
    await note('other');
    await note('solo');
    await update('solo', 'solo again');
    await eventually(async () => (one.events.length >= 2 ? true : undefined));
    expect(watched(one).map((e) => [e.type, e.resource])).toEqual([
      ['NoteCreated', 'notes/solo'],
      ['NoteUpdated', 'notes/solo'],
    ]);

    const badFilter = await watch({ body: { filter: 'colour = "red"' } });
    expect(badFilter.status).toBe(400);
    expect(JSON.stringify(badFilter.errorBody)).toMatch(/colour/);
    const badId = await watch({ lastEventId: 'yesterday' });
    expect(badId.status).toBe(400);

    // Everything from the start of the log: connections appear without their details, API keys not at all.
    const everything = await watch({ lastEventId: '0' });
    await eventually(async () => (watched(everything).some((e) => e.resource === 'notes/solo') ? true : undefined));
    const text = JSON.stringify(everything.events);
    expect(text).toMatch(/ConnectionConfigured/);
    expect(text).not.toMatch(/inline-secret|connectionDetails|secretHash|ApiKeyIssued/);
    expect(watched(everything).every((e) => !JSON.stringify(e).includes('globex'))).toBe(true);
  });
});
