import { ALICE, BOB, GINA, Stack } from './support/harness';

const S = 'svc.tags.v1.TagsService';

interface Tag {
  name: string;
  displayName?: string;
  description?: string;
  color?: string;
  system: boolean;
  createTime: string;
  updateTime: string;
  deleteTime?: string;
}
interface ListTags {
  tags: Tag[];
  nextPageToken: string;
}

const SYSTEM_TAGS = ['tags/svc:auto-created', 'tags/svc:deploy-monitor', 'tags/svc:investigation'];

describe('tags (svc.tags.v1.TagsService)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start();
  });
  afterAll(async () => {
    await stack.destroy();
  });

  const names = async (body: Record<string, unknown>, as = ALICE) =>
    (await stack.rpc<ListTags>(`${S}/ListTags`, body, as)).body.tags.map((t) => t.name);

  it('every organization starts with the grey, read-only system tags; filter system = true lists them', async () => {
    const listed = await stack.rpc<ListTags>(`${S}/ListTags`, { filter: 'system = true' });
    expect(listed.status).toBe(200);
    expect(listed.body.tags.map((t) => t.name)).toEqual(SYSTEM_TAGS);
    for (const tag of listed.body.tags) {
      expect(tag).toMatchObject({ system: true, color: '#808080', displayName: expect.any(String), description: expect.any(String) });
    }
    expect(await names({ filter: 'system = true' }, GINA)).toEqual(SYSTEM_TAGS);
    const got = await stack.rpc<{ tag: Tag }>(`${S}/GetTag`, { name: 'tags/svc:investigation' });
    expect(got.body.tag).toMatchObject({ name: 'tags/svc:investigation', system: true });
  });

  it('CreateTag takes IDs with colons; system is output only and false for user tags', async () => {
    const res = await stack.rpc<{ tag: Tag }>(`${S}/CreateTag`, {
      tag_id: 'team:payments',
      tag: { display_name: 'Payments', description: 'Owned by payments', color: '#1E90FF', system: true, create_time: '1999-01-01T00:00:00Z' },
    });
    expect(res.status).toBe(200);
    expect(res.body.tag).toEqual({
      name: 'tags/team:payments',
      displayName: 'Payments',
      description: 'Owned by payments',
      color: '#1E90FF',
      system: false,
      createTime: expect.stringMatching(/^20\d\d-/),
      updateTime: res.body.tag.createTime,
    });
    expect((await stack.rpc<{ tag: Tag }>(`${S}/GetTag`, { name: 'tags/team:payments' })).body.tag.system).toBe(false);
    expect(await names({ filter: 'system = false AND name = "tags/team:payments"' })).toEqual(['tags/team:payments']);
  });

  it("tag_id is required and checked; IDs starting with 'svc:' cannot be created (INVALID_ARGUMENT)", async () => {
    expect((await stack.rpc(`${S}/CreateTag`, { tag: {} })).body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringMatching(/tag_id/) } });
    for (const id of ['svc:mine', 'SVC:Mine', 'svc:investigation']) {
      const res = await stack.rpc(`${S}/CreateTag`, { tag_id: id, tag: { display_name: 'mine' } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringMatching(/reserved for system tags/) } });
    }
    for (const id of ['has space', 'a/b', 'a'.repeat(129)]) {
      expect((await stack.rpc(`${S}/CreateTag`, { tag_id: id, tag: {} })).body).toMatchObject({ error: { status: 'INVALID_ARGUMENT' } });
    }
    // The system tag is untouched.
    expect((await stack.rpc<{ tag: Tag }>(`${S}/GetTag`, { name: 'tags/svc:investigation' })).body.tag.displayName).toBe('Investigation');
    expect((await stack.rpc(`${S}/CreateTag`, { tag_id: 'dup', tag: {} })).status).toBe(200);
    expect((await stack.rpc(`${S}/CreateTag`, { tag_id: 'dup', tag: {} })).body).toMatchObject({ error: { status: 'ALREADY_EXISTS' } });
  });

  it('color must be #RRGGBB on create and update', async () => {
    const bad = await stack.rpc(`${S}/CreateTag`, { tag_id: 'colourful', tag: { color: 'red' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringMatching(/#RRGGBB/) } });
    expect((await stack.rpc(`${S}/GetTag`, { name: 'tags/colourful' })).status).toBe(404);
    expect((await stack.rpc(`${S}/CreateTag`, { tag_id: 'colourful', tag: { color: '#a0b1C2' } })).status).toBe(200);
    const update = await stack.rpc(`${S}/UpdateTag`, { tag: { name: 'tags/colourful', color: '#abc' }, update_mask: 'color' });
    expect(update.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringMatching(/#RRGGBB/) } });
  });

  it('system tags cannot be updated or deleted (FAILED_PRECONDITION)', async () => {
    const update = await stack.rpc(`${S}/UpdateTag`, { tag: { name: 'tags/svc:auto-created', display_name: 'Mine now' } });
    expect(update.status).toBe(400);
    expect(update.body).toMatchObject({ error: { status: 'FAILED_PRECONDITION', message: expect.stringMatching(/system tag/) } });
    const del = await stack.rpc(`${S}/DeleteTag`, { name: 'tags/svc:auto-created' });
    expect(del.body).toMatchObject({ error: { status: 'FAILED_PRECONDITION' } });
    const got = await stack.rpc<{ tag: Tag }>(`${S}/GetTag`, { name: 'tags/svc:auto-created' });
    expect(got.body.tag).toMatchObject({ displayName: 'Auto-created', system: true });
    expect(got.body.tag.deleteTime).toBeUndefined();
  });

  it('UpdateTag applies the mask; system in the mask is dropped as output only', async () => {
    await stack.rpc(`${S}/CreateTag`, { tag_id: 'env:prod', tag: { display_name: 'Prod', description: 'keep', color: '#FF0000' } });
    const updated = await stack.rpc<{ tag: Tag }>(`${S}/UpdateTag`, {
      tag: { name: 'tags/env:prod', display_name: 'Production', description: 'ignored', system: true },
      update_mask: 'display_name,system',
    });
    expect(updated.status).toBe(200);
    expect(updated.body.tag).toMatchObject({ displayName: 'Production', description: 'keep', color: '#FF0000', system: false });
    const noMask = await stack.rpc<{ tag: Tag }>(`${S}/UpdateTag`, { tag: { name: 'tags/env:prod', color: '#00FF00' } });
    expect(noMask.body.tag).toMatchObject({ displayName: 'Production', color: '#00FF00' });
    expect((await stack.rpc(`${S}/UpdateTag`, { tag: { name: 'tags/env:prod' }, update_mask: 'shade' })).status).toBe(400);
    expect((await stack.rpc(`${S}/UpdateTag`, { tag: { name: 'tags/missing', color: '#000000' } })).status).toBe(404);
  });

  it('DeleteTag is a soft delete: Get still works, List hides it unless show_deleted; the ID stays taken', async () => {
    await stack.rpc(`${S}/CreateTag`, { tag_id: 'gone', tag: { display_name: 'Soft delete check' } });
    const deleted = await stack.rpc(`${S}/DeleteTag`, { name: 'tags/gone' });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({});
    expect((await stack.rpc<{ tag: Tag }>(`${S}/GetTag`, { name: 'tags/gone' })).body.tag.deleteTime).toBeDefined();
    expect(await names({ filter: "display_name = 'Soft delete check'" })).toEqual([]);
    expect(await names({ filter: "display_name = 'Soft delete check'", show_deleted: true })).toEqual(['tags/gone']);
    expect((await stack.rpc(`${S}/DeleteTag`, { name: 'tags/gone' })).status).toBe(404);
    expect((await stack.rpc(`${S}/CreateTag`, { tag_id: 'gone', tag: {} })).status).toBe(409);
    // No UndeleteTag in the spec.
    expect((await stack.rpc(`${S}/UndeleteTag`, { name: 'tags/gone' })).status).toBe(404);
  });

  it('ListTags orders by name by default, orders by other fields, filters and pages', async () => {
    for (const id of ['p:c', 'p:a', 'p:b', 'p:d']) {
      await stack.rpc(`${S}/CreateTag`, { tag_id: id, tag: { display_name: `Paging ${id}`, color: id === 'p:a' ? '#000001' : '#000002' } });
    }
    expect(await names({ filter: 'name : "tags/p:*"' })).toEqual(['tags/p:a', 'tags/p:b', 'tags/p:c', 'tags/p:d']);
    expect(await names({ filter: 'name : "tags/p:*"', order_by: 'display_name desc' })).toEqual(['tags/p:d', 'tags/p:c', 'tags/p:b', 'tags/p:a']);
    expect(await names({ filter: 'name : "tags/p:*"', order_by: 'create_time' })).toEqual(['tags/p:c', 'tags/p:a', 'tags/p:b', 'tags/p:d']);
    expect(await names({ filter: 'color = "#000001"' })).toEqual(['tags/p:a']);
    const seen: string[] = [];
    let token = '';
    do {
      const page: { body: ListTags } = await stack.rpc<ListTags>(`${S}/ListTags`, { filter: 'name : "tags/p:*"', page_size: 3, page_token: token });
      expect(page.body.tags.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.tags.map((t) => t.name));
      token = page.body.nextPageToken;
    } while (token);
    expect(seen).toEqual(['tags/p:a', 'tags/p:b', 'tags/p:c', 'tags/p:d']);
    expect((await stack.rpc(`${S}/ListTags`, { filter: 'system = maybe' })).body).toMatchObject({ error: { status: 'INVALID_ARGUMENT' } });
    expect((await stack.rpc(`${S}/ListTags`, { order_by: 'color' })).body).toMatchObject({ error: { status: 'INVALID_ARGUMENT' } });
  });

  it('writes need AGENTS_WRITE; reads need only membership', async () => {
    const denied = await stack.rpc(`${S}/CreateTag`, { tag_id: 'bobs', tag: {} }, BOB);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ error: { status: 'PERMISSION_DENIED', message: expect.stringMatching(/AGENTS_WRITE/) } });
    expect((await stack.rpc(`${S}/UpdateTag`, { tag: { name: 'tags/team:payments', color: '#000000' } }, BOB)).status).toBe(403);
    expect((await stack.rpc(`${S}/DeleteTag`, { name: 'tags/team:payments' }, BOB)).status).toBe(403);
    expect((await stack.rpc(`${S}/GetTag`, { name: 'tags/team:payments' }, BOB)).status).toBe(200);
    expect((await stack.rpc(`${S}/ListTags`, {}, BOB)).status).toBe(200);
  });

  it('another organization never sees or changes acme tags, and has its own system tags', async () => {
    expect((await stack.rpc(`${S}/GetTag`, { name: 'tags/team:payments' }, GINA)).status).toBe(404);
    expect(await names({ filter: 'system = false' }, GINA)).toEqual([]);
    expect((await stack.rpc(`${S}/DeleteTag`, { name: 'tags/team:payments' }, GINA)).status).toBe(404);
    expect((await stack.rpc(`${S}/UpdateTag`, { tag: { name: 'tags/team:payments', color: '#000000' } }, GINA)).status).toBe(404);
    expect((await stack.rpc(`${S}/CreateTag`, { tag_id: 'team:payments', tag: { color: '#FFFFFF' } }, GINA)).status).toBe(200);
    expect((await stack.rpc<{ tag: Tag }>(`${S}/GetTag`, { name: 'tags/team:payments' })).body.tag.color).toBe('#1E90FF');
  });
});
