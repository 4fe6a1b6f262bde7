import { ALICE, BOB, GINA, Stack } from './support/harness';

const S = 'svc.notes.v1.NotesService';

interface Note {
  name: string;
  displayName?: string;
  toolName?: string;
  toolArgs?: Record<string, unknown>;
  createTime: string;
  updateTime: string;
  deleteTime?: string;
}
interface ListNotes {
  notes: Note[];
  nextPageToken: string;
}

describe('notes (svc.notes.v1.NotesService) through the resource kit', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start();
  });
  afterAll(async () => {
    await stack.destroy();
  });

  it('CreateNote stores the settable fields, ignores output-only ones and returns the note under `note`', async () => {
    const res = await stack.rpc<{ note: Note }>(`${S}/CreateNote`, {
      note_id: 'disk-full',
      note: {
        display_name: 'Disk full on db-1',
        notes: 'volume at 99%',
        tool_name: 'sqldb_query',
        tool_args: { max_rows: 10, query_options: { time_zone: 'UTC' } },
        create_time: '1999-01-01T00:00:00Z',
        name: 'notes/hijack',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.note).toEqual({
      name: 'notes/disk-full',
      displayName: 'Disk full on db-1',
      notes: 'volume at 99%',
      toolName: 'sqldb_query',
      toolArgs: { maxRows: 10, queryOptions: { timeZone: 'UTC' } },
      createTime: expect.stringMatching(/^20\d\d-/),
      updateTime: res.body.note.createTime,
    });
  });

  it('a created note is readable at once by Get and List (read your writes across processes)', async () => {
    const created = await stack.rpc(`${S}/CreateNote`, { note_id: 'ryw', note: { display_name: 'fresh' } });
    expect(created.status).toBe(200);
    const got = await stack.rpc<{ note: Note }>(`${S}/GetNote`, { name: 'notes/ryw' });
    expect(got.body.note.displayName).toBe('fresh');
    const listed = await stack.rpc<ListNotes>(`${S}/ListNotes`, { filter: `name = "notes/ryw"` });
    expect(listed.body.notes.map((n) => n.name)).toEqual(['notes/ryw']);
  });

  it('CreateNote requires note_id and a valid one; an existing ID is ALREADY_EXISTS', async () => {
    expect((await stack.rpc(`${S}/CreateNote`, { note: {} })).body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringMatching(/note_id/) } });
    expect((await stack.rpc(`${S}/CreateNote`, { note_id: '-bad', note: {} })).status).toBe(400);
    expect((await stack.rpc(`${S}/CreateNote`, { note_id: 'dup', note: {} })).status).toBe(200);
    const again = await stack.rpc(`${S}/CreateNote`, { note_id: 'dup', note: {} });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: { status: 'ALREADY_EXISTS' } });
  });

  it('wrong field types are INVALID_ARGUMENT and nothing is written', async () => {
    const res = await stack.rpc(`${S}/CreateNote`, { note_id: 'typed', note: { display_name: 42, tool_args: 'x' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringMatching(/display_name/) } });
    expect((await stack.rpc(`${S}/GetNote`, { name: 'notes/typed' })).status).toBe(404);
  });

  it('UpdateNote applies the mask, ignores output-only paths, rejects unknown paths', async () => {
    await stack.rpc(`${S}/CreateNote`, { note_id: 'upd', note: { display_name: 'before', description: 'keep me' } });
    const updated = await stack.rpc<{ note: Note & { description?: string } }>(`${S}/UpdateNote`, {
      note: { name: 'notes/upd', display_name: 'after', description: 'ignored' },
      update_mask: 'display_name,create_time',
    });
    expect(updated.status).toBe(200);
    expect(updated.body.note).toMatchObject({ displayName: 'after', description: 'keep me' });
    expect(updated.body.note.updateTime > updated.body.note.createTime).toBe(true);
    const unknown = await stack.rpc(`${S}/UpdateNote`, { note: { name: 'notes/upd' }, update_mask: 'colour' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: { message: expect.stringMatching(/colour/) } });
    const noMask = await stack.rpc<{ note: Note & { description?: string } }>(`${S}/UpdateNote`, {
      note: { name: 'notes/upd', description: 'only provided fields change' },
    });
    expect(noMask.body.note).toMatchObject({ displayName: 'after', description: 'only provided fields change' });
    expect((await stack.rpc(`${S}/UpdateNote`, { note: { name: 'notes/missing', display_name: 'x' } })).status).toBe(404);
  });

  it('DeleteNote is a soft delete: Get still answers, List hides it unless show_deleted', async () => {
    await stack.rpc(`${S}/CreateNote`, { note_id: 'gone', note: { tool_name: 'soft-delete-check' } });
    const deleted = await stack.rpc(`${S}/DeleteNote`, { name: 'notes/gone' });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({});
    const got = await stack.rpc<{ note: Note }>(`${S}/GetNote`, { name: 'notes/gone' });
    expect(got.body.note.deleteTime).toBeDefined();
    const hidden = await stack.rpc<ListNotes>(`${S}/ListNotes`, { filter: "tool_name = 'soft-delete-check'" });
    expect(hidden.body.notes).toEqual([]);
    const shown = await stack.rpc<ListNotes>(`${S}/ListNotes`, { filter: "tool_name = 'soft-delete-check'", show_deleted: true });
    expect(shown.body.notes.map((n) => n.name)).toEqual(['notes/gone']);
    expect((await stack.rpc(`${S}/DeleteNote`, { name: 'notes/gone' })).status).toBe(404);
    expect((await stack.rpc(`${S}/UpdateNote`, { note: { name: 'notes/gone', display_name: 'x' } })).status).toBe(404);
  });

  it('ListNotes filters, orders and pages with tokens bound to the query', async () => {
    for (let i = 0; i < 7; i++) {
      await stack.rpc(`${S}/CreateNote`, {
        note_id: `page-${i}`,
        note: { display_name: `Paging note ${i}`, tool_name: i % 2 === 0 ? 'even' : 'odd' },
      });
    }
    const even = await stack.rpc<ListNotes>(`${S}/ListNotes`, { filter: "tool_name = 'even'", order_by: 'display_name desc' });
    expect(even.body.notes.map((n) => n.name)).toEqual(['notes/page-6', 'notes/page-4', 'notes/page-2', 'notes/page-0']);
    expect(even.body.nextPageToken).toBe('');

    const seen: string[] = [];
    let token = '';
    do {
      const page: { body: ListNotes } = await stack.rpc<ListNotes>(`${S}/ListNotes`, {
        filter: "display_name : 'Paging*'",
        order_by: 'display_name',
        page_size: 3,
        page_token: token,
      });
      expect(page.body.notes.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.notes.map((n) => n.name));
      token = page.body.nextPageToken;
    } while (token);
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `notes/page-${i}`));

    const first = await stack.rpc<ListNotes>(`${S}/ListNotes`, { filter: "tool_name = 'odd'", page_size: 1 });
    const reused = await stack.rpc(`${S}/ListNotes`, { filter: "tool_name = 'even'", page_size: 1, page_token: first.body.nextPageToken });
    expect(reused.status).toBe(400);
    expect(reused.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringMatching(/page_token/) } });
    expect((await stack.rpc(`${S}/ListNotes`, { page_token: 'garbage!!' })).status).toBe(400);
  });

  it('filters: AND/OR precedence, negation, contains, timestamps, and clear errors', async () => {
    await stack.rpc(`${S}/CreateNote`, { note_id: 'f-a', note: { display_name: 'Alpha incident', tool_name: 'promql' } });
    await stack.rpc(`${S}/CreateNote`, { note_id: 'f-b', note: { display_name: 'Beta incident', tool_name: 'sqldb' } });
    await stack.rpc(`${S}/CreateNote`, { note_id: 'f-c', note: { display_name: 'Gamma', tool_name: 'sqldb' } });
    const names = async (filter: string) =>
      (await stack.rpc<ListNotes>(`${S}/ListNotes`, { filter, order_by: 'name' })).body.notes.map((n) => n.name);
    // AIP-160: OR binds tighter than AND.
    expect(await names(`name : "notes/f-*" AND tool_name = "promql" OR display_name = "Gamma"`)).toEqual(['notes/f-a', 'notes/f-c']);
    expect(await names(`display_name : '*incident*' AND NOT tool_name = 'promql'`)).toEqual(['notes/f-b']);
    expect(await names(`name : 'notes/f-*' AND -tool_name = sqldb`)).toEqual(['notes/f-a']);
    expect(await names(`name : 'notes/f-*' AND create_time > '2000-01-01T00:00:00Z'`)).toEqual(['notes/f-a', 'notes/f-b', 'notes/f-c']);
    expect(await names(`name : 'notes/f-*' AND create_time < "2000-01-01T00:00:00Z"`)).toEqual([]);
    for (const [filter, message] of [
      ['colour = "red"', /unknown field 'colour'/],
      ['tool_name = ', /filter/],
      ['create_time > "yesterday"', /create_time/],
      ['(tool_name = "x"', /filter/],
    ] as const) {
      const res = await stack.rpc(`${S}/ListNotes`, { filter });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringMatching(message) } });
    }
    const badOrder = await stack.rpc(`${S}/ListNotes`, { order_by: 'colour desc' });
    expect(badOrder.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringMatching(/colour/) } });
  });

  it('writes need KNOWLEDGE_WRITE; reads need only membership', async () => {
    const denied = await stack.rpc(`${S}/CreateNote`, { note_id: 'bobs', note: {} }, BOB);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ error: { status: 'PERMISSION_DENIED', message: expect.stringMatching(/KNOWLEDGE_WRITE/) } });
    expect((await stack.rpc(`${S}/GetNote`, { name: 'notes/disk-full' }, BOB)).status).toBe(200);
  });

  it('another organization never sees or touches acme notes', async () => {
    expect((await stack.rpc(`${S}/GetNote`, { name: 'notes/disk-full' }, GINA)).status).toBe(404);
    expect((await stack.rpc<ListNotes>(`${S}/ListNotes`, {}, GINA)).body.notes).toEqual([]);
    expect((await stack.rpc(`${S}/DeleteNote`, { name: 'notes/disk-full' }, GINA)).status).toBe(404);
    // The same ID is free in another organization.
    expect((await stack.rpc(`${S}/CreateNote`, { note_id: 'disk-full', note: {} }, GINA)).status).toBe(200);
    expect((await stack.rpc<{ note: Note }>(`${S}/GetNote`, { name: 'notes/disk-full' }, ALICE)).body.note.displayName).toBe('Disk full on db-1');
  });

  it('request_id: a retried create answers like the first and appends nothing', async () => {
    const body = { note_id: 'idem', note: { display_name: 'once' }, request_id: 'b7a4d3c2-retry-1' };
    const first = await stack.rpc<{ note: Note }>(`${S}/CreateNote`, body);
    const second = await stack.rpc<{ note: Note }>(`${S}/CreateNote`, body);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    const update = { note: { name: 'notes/idem', display_name: 'twice' }, update_mask: 'display_name', request_id: 'upd-1' };
    const u1 = await stack.rpc<{ note: Note }>(`${S}/UpdateNote`, update);
    await stack.rpc(`${S}/UpdateNote`, { note: { name: 'notes/idem', display_name: 'thrice' }, update_mask: 'display_name' });
    const u2 = await stack.rpc<{ note: Note }>(`${S}/UpdateNote`, update);
    expect(u2.body).toEqual(u1.body);
    expect((await stack.rpc<{ note: Note }>(`${S}/GetNote`, { name: 'notes/idem' })).body.note.displayName).toBe('thrice');
  });

  it('accepts lowerCamelCase request fields too', async () => {
    const res = await stack.rpc<{ note: Note }>(`${S}/CreateNote`, { noteId: 'camel', note: { displayName: 'camel case', toolName: 't' } });
    expect(res.body.note).toMatchObject({ name: 'notes/camel', displayName: 'camel case', toolName: 't' });
  });
});
