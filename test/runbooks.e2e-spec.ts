import { BOB, GINA, Stack } from './support/harness';

const S = 'svc.runbooks.v1.RunbooksService';

interface Runbook {
  name: string;
  displayName?: string;
  description?: string;
  text?: string;
  connections?: { name: string; enabledTools?: string[] }[];
  createTime: string;
  updateTime: string;
  deleteTime?: string;
}
interface ListRunbooks {
  runbooks: Runbook[];
  nextPageToken: string;
}

describe('runbooks (svc.runbooks.v1.RunbooksService)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start();
  });
  afterAll(async () => {
    await stack.destroy();
  });

  const create = (id: string, runbook: Record<string, unknown>, as?: typeof BOB) =>
    stack.rpc<{ runbook: Runbook }>(`${S}/CreateRunbook`, { runbook_id: id, runbook }, as);
  const update = (runbook: Record<string, unknown>, updateMask?: string) =>
    stack.rpc<{ runbook: Runbook }>(`${S}/UpdateRunbook`, { runbook, update_mask: updateMask });
  const names = async (body: Record<string, unknown>) => (await stack.rpc<ListRunbooks>(`${S}/ListRunbooks`, body)).body.runbooks.map((r) => r.name);

  it('CreateRunbook stores the fields and connection bindings (enabledTools on the wire)', async () => {
    const res = await create('db-failover', {
      display_name: 'Database failover',
      description: 'When the primary stops answering',
      text: '1. Check replication lag\n2. Promote the replica',
      connections: [
        { name: 'connections/warehouse', enabled_tools: ['TOOL_SQLDB_QUERY'] },
        { name: 'connections/metrics', enabled_tools: ['TOOL_PROMQL_QUERY', 'TOOL_PROMQL_QUERY_RANGE'] },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.runbook).toEqual({
      name: 'runbooks/db-failover',
      displayName: 'Database failover',
      description: 'When the primary stops answering',
      text: '1. Check replication lag\n2. Promote the replica',
      connections: [
        { name: 'connections/warehouse', enabledTools: ['TOOL_SQLDB_QUERY'] },
        { name: 'connections/metrics', enabledTools: ['TOOL_PROMQL_QUERY', 'TOOL_PROMQL_QUERY_RANGE'] },
      ],
      createTime: expect.stringMatching(/^20\d\d-/),
      updateTime: res.body.runbook.createTime,
    });
    expect((await stack.rpc<{ runbook: Runbook }>(`${S}/GetRunbook`, { name: 'runbooks/db-failover' })).body.runbook).toEqual(res.body.runbook);
  });

  it("connections must name existing connections of the organization and tools their type offers; nothing is written otherwise", async () => {
    const cases: [unknown, RegExp][] = [
      [[{ name: 'connections/nowhere' }], /refers to 'connections\/nowhere', which does not exist/],
      // globex's connection is invisible to acme.
      [[{ name: 'connections/ledger' }], /connections\/ledger/],
      [[{ name: 'connections/warehouse', enabled_tools: ['TOOL_PROMQL_QUERY'] }], /'TOOL_PROMQL_QUERY' is not a tool of connections\/warehouse/],
      [[{ name: 'connections/slack' }, { name: 'connections/slack' }], /bound twice/],
      [[{ name: 'connections/warehouse', enabled_tools: ['TOOL_SQLDB_QUERY', 'TOOL_SQLDB_QUERY'] }], /'TOOL_SQLDB_QUERY' is listed twice/],
      [[{ name: 'warehouse' }], /connections\[0\]\.name must look like 'connections\/\{connection_id\}', got 'warehouse'/],
      [[{ enabled_tools: [] }], /name/],
      ['connections/warehouse', /connections/],
    ];
    for (const [connections, message] of cases) {
      const res = await create('bad-binding', { connections });
      expect({ connections, status: res.status }).toEqual({ connections, status: 400 });
      expect(res.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringMatching(message) } });
    }
    expect((await stack.rpc(`${S}/GetRunbook`, { name: 'runbooks/bad-binding' })).status).toBe(404);
    // The same name is fine in the organization that owns it.
    expect((await create('ledger-check', { connections: [{ name: 'connections/ledger', enabled_tools: ['TOOL_SQLDB_QUERY'] }] }, GINA)).status).toBe(200);
  });

  it('UpdateRunbook checks new bindings the same way and applies the mask', async () => {
    await create('restart', { display_name: 'Restart', text: 'Restart the pods' });
    // Unknown keys inside a binding are dropped like unknown top-level fields, never stored.
    const bound = await update(
      { name: 'runbooks/restart', connections: [{ name: 'connections/github', enabled_tools: ['TOOL_CODEHOST_SEARCH'], colour: 'red', extra: { a_b: 1 } }] },
      'connections',
    );
    expect(bound.status).toBe(200);
    expect(bound.body.runbook).toMatchObject({ text: 'Restart the pods' });
    expect(bound.body.runbook.connections).toEqual([{ name: 'connections/github', enabledTools: ['TOOL_CODEHOST_SEARCH'] }]);
    expect((await stack.rpc<{ runbook: Runbook }>(`${S}/GetRunbook`, { name: 'runbooks/restart' })).body.runbook.connections).toEqual(bound.body.runbook.connections);
    const wrongTool = await update({ name: 'runbooks/restart', connections: [{ name: 'connections/github', enabled_tools: ['TOOL_SQLDB_QUERY'] }] });
    expect(wrongTool.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringMatching(/TOOL_SQLDB_QUERY/) } });
    const cleared = await update({ name: 'runbooks/restart' }, 'connections');
    expect(cleared.body.runbook.connections).toBeUndefined();
    expect((await update({ name: 'runbooks/missing', text: 'x' })).status).toBe(404);
  });

  it('ListRunbooks filters, orders and pages; soft delete hides unless show_deleted', async () => {
    for (let i = 0; i < 5; i++) await create(`list-${i}`, { display_name: `Listed runbook ${i}`, description: i % 2 ? 'odd one' : 'even one' });
    expect(await names({ filter: "display_name : '*runbook 2*'" })).toEqual(['runbooks/list-2']);
    expect(await names({ filter: "description = 'odd one'", order_by: 'display_name desc' })).toEqual(['runbooks/list-3', 'runbooks/list-1']);
    expect(await names({ filter: "display_name : 'Listed*' AND create_time < '2000-01-01T00:00:00Z'" })).toEqual([]);
    const seen: string[] = [];
    let token = '';
    do {
      const page: { body: ListRunbooks } = await stack.rpc<ListRunbooks>(`${S}/ListRunbooks`, {
        filter: "display_name : 'Listed*'",
        order_by: 'display_name',
        page_size: 2,
        page_token: token,
      });
      expect(page.body.runbooks.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.runbooks.map((r) => r.name));
      token = page.body.nextPageToken;
    } while (token);
    expect(seen).toEqual([0, 1, 2, 3, 4].map((i) => `runbooks/list-${i}`));

    expect((await stack.rpc(`${S}/DeleteRunbook`, { name: 'runbooks/list-4' })).body).toEqual({});
    expect((await stack.rpc<{ runbook: Runbook }>(`${S}/GetRunbook`, { name: 'runbooks/list-4' })).body.runbook.deleteTime).toBeDefined();
    expect(await names({ filter: "display_name : 'Listed*'", order_by: 'name' })).toEqual([0, 1, 2, 3].map((i) => `runbooks/list-${i}`));
    expect(await names({ filter: "display_name : 'Listed*'", order_by: 'name', show_deleted: true })).toEqual([0, 1, 2, 3, 4].map((i) => `runbooks/list-${i}`));
    expect((await stack.rpc(`${S}/DeleteRunbook`, { name: 'runbooks/list-4' })).status).toBe(404);
  });

  it('writes need KNOWLEDGE_WRITE; another organization never sees or touches acme runbooks', async () => {
    const denied = await create('bobs', {}, BOB);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ error: { status: 'PERMISSION_DENIED', message: expect.stringMatching(/KNOWLEDGE_WRITE/) } });
    expect((await stack.rpc(`${S}/UpdateRunbook`, { runbook: { name: 'runbooks/db-failover', text: 'x' } }, BOB)).status).toBe(403);
    expect((await stack.rpc(`${S}/DeleteRunbook`, { name: 'runbooks/db-failover' }, BOB)).status).toBe(403);
    expect((await stack.rpc(`${S}/GetRunbook`, { name: 'runbooks/db-failover' }, BOB)).status).toBe(200);
    expect((await stack.rpc(`${S}/GetRunbook`, { name: 'runbooks/db-failover' }, GINA)).status).toBe(404);
    expect((await stack.rpc<ListRunbooks>(`${S}/ListRunbooks`, {}, GINA)).body.runbooks.map((r) => r.name)).toEqual(['runbooks/ledger-check']);
    expect((await stack.rpc(`${S}/DeleteRunbook`, { name: 'runbooks/db-failover' }, GINA)).status).toBe(404);
    expect((await stack.rpc(`${S}/UpdateRunbook`, { runbook: { name: 'runbooks/db-failover', text: 'x' } }, GINA)).status).toBe(404);
    expect((await stack.rpc(`${S}/GetRunbook`, { name: 'runbooks/db-failover' })).body).toMatchObject({ runbook: { displayName: 'Database failover' } });
  });
});
