/**
 * A resource's history and as-of reads over HTTP, with the real processes: what changed, who changed
 * it, in which request, and what the resource (a note, a role) was at a past version or time.
 */
import { BOB, GINA, Stack, sleep } from './support/harness';

const NOTES = 'svc.notes.v1.NotesService';
const ROLES = 'svc.rbac.v1.RolesService';
const H = 'svc.history.v1.HistoryService';

interface Entry {
  position: string;
  version: number;
  type: string;
  time: string;
  actor: string;
  subject: string;
  requestId?: string;
  correlationId: string;
  changedFields: string[];
  set: Record<string, unknown>;
  unset: string[];
}
interface HistoryPage {
  events: Entry[];
  nextPageToken: string;
}

describe('History and as-of reads', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start();
  });
  afterAll(() => stack.destroy());

  const history = (name: string, query = '', as?: typeof BOB) => stack.request<HistoryPage>('GET', `/v1/${name}:history${query}`, { as });

  it('lists every event of a note with what it changed, who did it and in which request, oldest or newest first, paged', async () => {
    expect((await stack.rpc(`${NOTES}/CreateNote`, { note_id: 'disk', note: { display_name: 'Disk', description: 'first' } })).status).toBe(200);
    expect((await stack.rpc(`${NOTES}/UpdateNote`, { note: { name: 'notes/disk', display_name: 'Disk full' }, update_mask: 'display_name', request_id: 'req-rename' })).status).toBe(200);
    await sleep(5); // distinct occurredAt for the read_time of the rename below
    expect((await stack.rpc(`${NOTES}/UpdateNote`, { note: { name: 'notes/disk' }, update_mask: 'description' })).status).toBe(200);
    expect((await stack.rpc(`${NOTES}/DeleteNote`, { name: 'notes/disk' })).status).toBe(200);

    const all = await history('notes/disk');
    expect(all.status).toBe(200);
    expect(all.body.events.map((e) => e.type)).toEqual(['NoteCreated', 'NoteUpdated', 'NoteUpdated', 'NoteDeleted']);
    expect(all.body.events.map((e) => e.version)).toEqual([0, 1, 2, 3]);
    const [created, renamed, cleared, deleted] = all.body.events;
    expect(created).toMatchObject({ actor: 'users/alice', subject: 'users/alice', set: { name: 'notes/disk', displayName: 'Disk', description: 'first' } });
    expect(renamed).toMatchObject({ requestId: 'req-rename', changedFields: ['displayName', 'updateTime'], set: { displayName: 'Disk full' }, unset: [] });
    expect(cleared).toMatchObject({ changedFields: ['description', 'updateTime'], unset: ['description'] });
    expect(deleted.changedFields).toEqual(['deleteTime']);
    expect(all.body.nextPageToken).toBe('');
    // Positions are the opaque event ids of the watch streams: nothing tells how many events other tenants wrote between two.
    for (const entry of all.body.events) expect(entry.position).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set(all.body.events.map((e) => e.position)).size).toBe(4);

    // Newest first, two at a time; the token is bound to the order it was issued for.
    const first = await history('notes/disk', '?orderBy=time%20desc&pageSize=2');
    expect(first.body.events.map((e) => e.version)).toEqual([3, 2]);
    const second = await history('notes/disk', `?orderBy=time%20desc&pageSize=2&pageToken=${first.body.nextPageToken}`);
    expect(second.body.events.map((e) => e.version)).toEqual([1, 0]);
    expect(second.body.nextPageToken).toBe('');
    const mismatched = await history('notes/disk', `?pageSize=2&pageToken=${first.body.nextPageToken}`);
    expect(mismatched.status).toBe(400);
    expect((await history('notes/disk', '?orderBy=colour')).status).toBe(400);

    // The RPC form answers the same.
    const rpc = await stack.rpc<HistoryPage>(`${H}/ListResourceHistory`, { name: 'notes/disk', page_size: 1 });
    expect(rpc.status).toBe(200);
    expect(rpc.body.events[0].type).toBe('NoteCreated');
  });

  it('reads a note as it was at a past version or time, folded from its events', async () => {
    const v0 = await stack.request<{ resource: Record<string, unknown>; version: number }>('GET', '/v1/notes/disk:asOf?version=0');
    expect(v0.status).toBe(200);
    expect(v0.body.resource).toMatchObject({ name: 'notes/disk', displayName: 'Disk', description: 'first' });
    expect(v0.body.resource.deleteTime).toBeUndefined();
    const entries = (await history('notes/disk')).body.events;
    const atRename = await stack.request<{ resource: Record<string, unknown>; version: number }>('GET', `/v1/notes/disk:asOf?readTime=${encodeURIComponent(entries[1].time)}`);
    expect(atRename.status).toBe(200);
    expect(atRename.body).toMatchObject({ version: 1, resource: { displayName: 'Disk full', description: 'first' } });
    const now = await stack.rpc<{ resource: Record<string, unknown> }>(`${H}/GetResourceAsOf`, { name: 'notes/disk', read_time: new Date().toISOString() });
    expect(now.body.resource.deleteTime).toBeDefined();

    const before = await stack.request('GET', '/v1/notes/disk:asOf?readTime=2000-01-01T00:00:00Z');
    expect(before.status).toBe(404);
    expect((await stack.request('GET', '/v1/notes/disk:asOf?readTime=yesterday')).status).toBe(400);
    expect((await stack.request('GET', '/v1/notes/disk:asOf')).status).toBe(400);
    expect((await stack.request('GET', '/v1/notes/disk:asOf?version=-1')).status).toBe(400);
  });

  it("answers what a role granted last time, from the access aggregate's own fold", async () => {
    expect((await stack.rpc(`${ROLES}/CreateRole`, { role_id: 'oncall', role: { display_name: 'On call', permissions: ['KNOWLEDGE_WRITE'] } })).status).toBe(200);
    expect((await stack.rpc(`${NOTES}/CreateNote`, { note_id: 'between', note: { display_name: 'unrelated access-free event' } })).status).toBe(200);
    await sleep(5); // distinct occurredAt for the read_time below
    const grant = await stack.rpc(`${ROLES}/UpdateRole`, { role: { name: 'roles/oncall', permissions: ['KNOWLEDGE_WRITE', 'AGENTS_WRITE'] }, update_mask: 'permissions' });
    expect(grant.status).toBe(200);

    const trail = await history('roles/oncall', '', BOB);
    expect(trail.status).toBe(200);
    expect(trail.body.events.map((e) => e.type)).toEqual(['RoleCreated', 'RoleUpdated']);
    expect(trail.body.events[1]).toMatchObject({ actor: 'users/alice', changedFields: ['permissions', 'updateTime'], set: { permissions: ['AGENTS_WRITE', 'KNOWLEDGE_WRITE'] } });

    const created = trail.body.events[0];
    const then = await stack.request<{ resource: { permissions: string[] } }>('GET', `/v1/roles/oncall:asOf?readTime=${encodeURIComponent(created.time)}`, { as: BOB });
    expect(then.status).toBe(200);
    expect(then.body.resource.permissions).toEqual(['KNOWLEDGE_WRITE']);
    const byVersion = await stack.request<{ resource: { permissions: string[] } }>('GET', `/v1/roles/oncall:asOf?version=${trail.body.events[1].version}`);
    expect(byVersion.body.resource.permissions).toEqual(['AGENTS_WRITE', 'KNOWLEDGE_WRITE']);
  });

  it("keeps tenancy and secrets: another organization's resource is not found; a connection's sealed details never show", async () => {
    expect((await history('notes/disk', '', GINA)).status).toBe(404);
    expect((await stack.request('GET', '/v1/notes/disk:asOf?version=0', { as: GINA })).status).toBe(404);
    expect((await history('notes/never-made')).status).toBe(404);
    expect((await history('nothing/like-this')).status).toBe(404);

    const connection = await history('connections/warehouse');
    expect(connection.status).toBe(200);
    expect(connection.body.events[0].type).toBe('ConnectionConfigured');
    expect(connection.body.events[0].set).toMatchObject({ displayName: 'Warehouse' });
    expect(JSON.stringify(connection.body)).not.toMatch(/connectionDetails|inline-secret|sealed/);
    const asOf = await stack.request('GET', '/v1/connections/warehouse:asOf?version=0');
    expect(asOf.status).toBe(200);
    expect(JSON.stringify(asOf.body)).not.toMatch(/connectionDetails|inline-secret/);
  });
});
