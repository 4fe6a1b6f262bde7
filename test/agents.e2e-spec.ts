import { ALICE, BOB, DEPLOYER, GINA, Stack } from './support/harness';

const S = 'svc.nxagent.v2.AgentService';
const TAGS = 'svc.tags.v1.TagsService';

interface Agent {
  name: string;
  title?: string;
  description?: string;
  prompt?: string;
  connections?: Array<{ name: string; enabledTools?: string[] }>;
  state: string;
  tags?: string[];
  createdBy: string;
  createTime: string;
  updateTime: string;
  deleteTime?: string;
}
interface ListAgents {
  agents: Agent[];
  nextPageToken: string;
}

describe('agents (svc.nxagent.v2.AgentService: agent methods)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start();
    for (const id of ['triage', 'db', 'retired']) {
      expect((await stack.rpc(`${TAGS}/CreateTag`, { tag_id: id, tag: { display_name: id } })).status).toBe(200);
    }
    expect((await stack.rpc(`${TAGS}/DeleteTag`, { name: 'tags/retired' })).status).toBe(200);
  });
  afterAll(async () => {
    await stack.destroy();
  });

  const names = async (body: Record<string, unknown>, as = ALICE) =>
    (await stack.rpc<ListAgents>(`${S}/ListAgents`, body, as)).body.agents.map((a) => a.name);
  const expectInvalid = (res: { status: number; body: unknown }, message: RegExp) => {
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringMatching(message) } });
  };

  it('CreateAgent stores the agent with connections, tools and tags; createdBy is the caller; output-only fields are ignored', async () => {
    const res = await stack.rpc<{ agent: Agent }>(`${S}/CreateAgent`, {
      agent_id: 'warehouse-watch',
      agent: {
        title: 'Warehouse watcher',
        description: 'Watches the warehouse',
        prompt: 'You watch the warehouse.',
        connections: [
          { name: 'connections/warehouse', enabled_tools: ['TOOL_SQLDB_QUERY', 'TOOL_SQLDB_LIST_TABLES'], colour: 'dropped' },
          { name: 'connections/metrics', enabled_tools: ['TOOL_PROMQL_QUERY', 'TOOL_PROMQL_QUERY_RANGE'] },
        ],
        state: 'AGENT_STATE_OFF',
        tags: ['tags/triage', 'tags/svc:investigation'],
        created_by: 'users/mallory',
        name: 'agents/hijack',
        create_time: '1999-01-01T00:00:00Z',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.agent).toEqual({
      name: 'agents/warehouse-watch',
      title: 'Warehouse watcher',
      description: 'Watches the warehouse',
      prompt: 'You watch the warehouse.',
      connections: [
        { name: 'connections/warehouse', enabledTools: ['TOOL_SQLDB_QUERY', 'TOOL_SQLDB_LIST_TABLES'] },
        { name: 'connections/metrics', enabledTools: ['TOOL_PROMQL_QUERY', 'TOOL_PROMQL_QUERY_RANGE'] },
      ],
      state: 'AGENT_STATE_OFF',
      tags: ['tags/triage', 'tags/svc:investigation'],
      createdBy: 'users/alice',
      createTime: expect.stringMatching(/^20\d\d-/),
      updateTime: res.body.agent.createTime,
    });
    const got = await stack.rpc<{ agent: Agent }>(`${S}/GetAgent`, { name: 'agents/warehouse-watch' });
    expect(got.body.agent).toEqual(res.body.agent);
  });

  it('state defaults to AGENT_STATE_ON; createdBy names a service account when one creates the agent', async () => {
    const res = await stack.rpc<{ agent: Agent }>(`${S}/CreateAgent`, { agent_id: 'defaults', agent: {} }, DEPLOYER);
    expect(res.body.agent).toMatchObject({ state: 'AGENT_STATE_ON', createdBy: 'service-accounts/deployer' });
    const bare = await stack.rpc<{ agent: Agent }>(`${S}/CreateAgent`, { agent_id: 'no-body' });
    expect(bare.status).toBe(200);
    expect(bare.body.agent.state).toBe('AGENT_STATE_ON');
  });

  it('agent_id is required, starts with a letter or digit and holds only letters, digits, hyphens and underscores', async () => {
    expectInvalid(await stack.rpc(`${S}/CreateAgent`, { agent: {} }), /agent_id is required/);
    for (const id of ['-lead', '_lead', 'has:colon', 'has space']) {
      expectInvalid(await stack.rpc(`${S}/CreateAgent`, { agent_id: id, agent: {} }), /agent_id must start with a letter or digit/);
    }
    expect((await stack.rpc(`${S}/CreateAgent`, { agent_id: '7_seven-A', agent: {} })).status).toBe(200);
    expect((await stack.rpc(`${S}/CreateAgent`, { agent_id: '7_seven-A', agent: {} })).body).toMatchObject({ error: { status: 'ALREADY_EXISTS' } });
  });

  it('state must be AGENT_STATE_ON or AGENT_STATE_OFF', async () => {
    expectInvalid(await stack.rpc(`${S}/CreateAgent`, { agent_id: 'bad-state', agent: { state: 'AGENT_STATE_PAUSED' } }), /AGENT_STATE_ON or AGENT_STATE_OFF/);
    expectInvalid(await stack.rpc(`${S}/CreateAgent`, { agent_id: 'bad-state', agent: { state: 'AGENT_STATE_UNSPECIFIED' } }), /state/);
    expect((await stack.rpc(`${S}/GetAgent`, { name: 'agents/bad-state' })).status).toBe(404);
  });

  it('connections must be the organization\'s and enable only tools their type offers', async () => {
    // TOOL_PROMQL_QUERY is a Prometheus tool; warehouse is SQLDB.
    expectInvalid(
      await stack.rpc(`${S}/CreateAgent`, {
        agent_id: 'wrong-tool',
        agent: { connections: [{ name: 'connections/warehouse', enabled_tools: ['TOOL_PROMQL_QUERY'] }] },
      }),
      /'TOOL_PROMQL_QUERY' is not a tool of connections\/warehouse \(CONNECTION_TYPE_SQLDB\)/,
    );
    expectInvalid(
      await stack.rpc(`${S}/CreateAgent`, { agent_id: 'wrong-tool', agent: { connections: [{ name: 'connections/nowhere' }] } }),
      /connections\/nowhere.*does not exist/,
    );
    // globex's connection does not exist for acme.
    expectInvalid(
      await stack.rpc(`${S}/CreateAgent`, { agent_id: 'wrong-tool', agent: { connections: [{ name: 'connections/ledger', enabled_tools: ['TOOL_SQLDB_QUERY'] }] } }),
      /connections\/ledger.*does not exist/,
    );
    expectInvalid(
      await stack.rpc(`${S}/CreateAgent`, { agent_id: 'wrong-tool', agent: { connections: [{ name: 'warehouse' }] } }),
      /connections\[0\]\.name must look like 'connections\/\{connection_id\}'/,
    );
    expectInvalid(
      await stack.rpc(`${S}/CreateAgent`, { agent_id: 'wrong-tool', agent: { connections: [{ name: 'connections/warehouse' }, { name: 'connections/warehouse' }] } }),
      /bound twice/,
    );
    expectInvalid(
      await stack.rpc(`${S}/CreateAgent`, {
        agent_id: 'wrong-tool',
        agent: { connections: [{ name: 'connections/metrics', enabled_tools: ['TOOL_PROMQL_QUERY', 'TOOL_PROMQL_QUERY'] }] },
      }),
      /connections\[0\]\.enabled_tools: 'TOOL_PROMQL_QUERY' is listed twice/,
    );
    expectInvalid(await stack.rpc(`${S}/CreateAgent`, { agent_id: 'wrong-tool', agent: { connections: [{ enabled_tools: [] }] } }), /connections\.0\.name|name/);
    expectInvalid(await stack.rpc(`${S}/CreateAgent`, { agent_id: 'wrong-tool', agent: { connections: 'connections/warehouse' } }), /connections/);
    expect((await stack.rpc(`${S}/GetAgent`, { name: 'agents/wrong-tool' })).status).toBe(404);
    // gina binds her own ledger.
    const globex = await stack.rpc<{ agent: Agent }>(
      `${S}/CreateAgent`,
      { agent_id: 'ledger-watch', agent: { connections: [{ name: 'connections/ledger', enabled_tools: ['TOOL_SQLDB_QUERY'] }] } },
      GINA,
    );
    expect(globex.status).toBe(200);
  });

  it('tags must be existing, live tags of the organization', async () => {
    expectInvalid(await stack.rpc(`${S}/CreateAgent`, { agent_id: 'tagged', agent: { tags: ['tags/nope'] } }), /tags\/nope.*does not exist/);
    expectInvalid(await stack.rpc(`${S}/CreateAgent`, { agent_id: 'tagged', agent: { tags: ['tags/retired'] } }), /tags\/retired/);
    expectInvalid(await stack.rpc(`${S}/CreateAgent`, { agent_id: 'tagged', agent: { tags: ['triage'] } }), /tags\[0\] must look like 'tags\/\{tag_id\}'/);
    expectInvalid(await stack.rpc(`${S}/CreateAgent`, { agent_id: 'tagged', agent: { tags: ['tags/db', 'tags/db'] } }), /listed twice/);
    // acme's tag is not globex's.
    expectInvalid(await stack.rpc(`${S}/CreateAgent`, { agent_id: 'tagged', agent: { tags: ['tags/triage'] } }, GINA), /tags\/triage/);
    const ok = await stack.rpc<{ agent: Agent }>(`${S}/CreateAgent`, { agent_id: 'tagged', agent: { tags: ['tags/db'] } });
    expect(ok.body.agent.tags).toEqual(['tags/db']);
  });

  it('UpdateAgent needs a non-empty update_mask and never replaces the whole agent', async () => {
    await stack.rpc(`${S}/CreateAgent`, { agent_id: 'masked', agent: { title: 'Masked', prompt: 'keep me' } });
    expectInvalid(await stack.rpc(`${S}/UpdateAgent`, { agent: { name: 'agents/masked', title: 'x' } }), /update_mask is required/);
    expectInvalid(await stack.rpc(`${S}/UpdateAgent`, { agent: { name: 'agents/masked', title: 'x' }, update_mask: '' }), /update_mask is required/);
    expectInvalid(await stack.rpc(`${S}/UpdateAgent`, { agent: { name: 'agents/masked', title: 'x' }, update_mask: '*' }), /full replacement/);
    expectInvalid(await stack.rpc(`${S}/UpdateAgent`, { agent: { name: 'agents/masked' }, update_mask: 'colour' }), /colour/);
    expect((await stack.rpc<{ agent: Agent }>(`${S}/GetAgent`, { name: 'agents/masked' })).body.agent.title).toBe('Masked');

    const updated = await stack.rpc<{ agent: Agent }>(`${S}/UpdateAgent`, {
      agent: { name: 'agents/masked', title: 'Renamed', prompt: 'not in the mask', state: 'AGENT_STATE_OFF', created_by: 'users/mallory' },
      update_mask: 'title,state,created_by',
    });
    expect(updated.status).toBe(200);
    expect(updated.body.agent).toMatchObject({ title: 'Renamed', prompt: 'keep me', state: 'AGENT_STATE_OFF', createdBy: 'users/alice' });
    expect(updated.body.agent.updateTime > updated.body.agent.createTime).toBe(true);
    expectInvalid(await stack.rpc(`${S}/UpdateAgent`, { agent: { name: 'agents/masked', state: 'OFF' }, update_mask: 'state' }), /state/);
    expect((await stack.rpc(`${S}/UpdateAgent`, { agent: { name: 'agents/missing', title: 'x' }, update_mask: 'title' })).status).toBe(404);
  });

  it('UpdateAgent checks new connections, tools and tags, and keeps ones that have not changed', async () => {
    await stack.rpc(`${TAGS}/CreateTag`, { tag_id: 'fleeting', tag: {} });
    await stack.rpc(`${S}/CreateAgent`, {
      agent_id: 'evolving',
      agent: { connections: [{ name: 'connections/warehouse', enabled_tools: ['TOOL_SQLDB_QUERY'] }], tags: ['tags/fleeting'] },
    });
    await stack.rpc(`${TAGS}/DeleteTag`, { name: 'tags/fleeting' });
    // The tag was deleted since; an update that does not touch tags still works.
    expect((await stack.rpc(`${S}/UpdateAgent`, { agent: { name: 'agents/evolving', title: 'Still fine' }, update_mask: 'title' })).status).toBe(200);
    // Adding a deleted tag does not.
    expectInvalid(
      await stack.rpc(`${S}/UpdateAgent`, { agent: { name: 'agents/evolving', tags: ['tags/fleeting', 'tags/retired'] }, update_mask: 'tags' }),
      /tags\/retired/,
    );
    expectInvalid(
      await stack.rpc(`${S}/UpdateAgent`, {
        agent: { name: 'agents/evolving', connections: [{ name: 'connections/warehouse', enabled_tools: ['TOOL_SQLDB_QUERY', 'TOOL_HTTP_REQUEST'] }] },
        update_mask: 'connections',
      }),
      /TOOL_HTTP_REQUEST/,
    );
    const ok = await stack.rpc<{ agent: Agent }>(`${S}/UpdateAgent`, {
      agent: {
        name: 'agents/evolving',
        connections: [
          { name: 'connections/warehouse', enabled_tools: ['TOOL_SQLDB_QUERY', 'TOOL_SQLDB_DESCRIBE_TABLE'] },
          { name: 'connections/slack', enabled_tools: ['TOOL_CHAT_POST_MESSAGE'] },
        ],
        tags: ['tags/triage'],
      },
      update_mask: 'connections,tags',
    });
    expect(ok.status).toBe(200);
    expect(ok.body.agent.connections).toEqual([
      { name: 'connections/warehouse', enabledTools: ['TOOL_SQLDB_QUERY', 'TOOL_SQLDB_DESCRIBE_TABLE'] },
      { name: 'connections/slack', enabledTools: ['TOOL_CHAT_POST_MESSAGE'] },
    ]);
    expect(ok.body.agent.tags).toEqual(['tags/triage']);
  });

  it('DeleteAgent is a soft delete; UndeleteAgent returns the agent and it reappears in lists', async () => {
    await stack.rpc(`${S}/CreateAgent`, { agent_id: 'phoenix', agent: { title: 'Phoenix' } });
    const deleted = await stack.rpc(`${S}/DeleteAgent`, { name: 'agents/phoenix' });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({});
    expect((await stack.rpc<{ agent: Agent }>(`${S}/GetAgent`, { name: 'agents/phoenix' })).body.agent.deleteTime).toBeDefined();
    expect(await names({ filter: "title = 'Phoenix'" })).toEqual([]);
    expect(await names({ filter: "title = 'Phoenix'", show_deleted: true })).toEqual(['agents/phoenix']);
    expect((await stack.rpc(`${S}/DeleteAgent`, { name: 'agents/phoenix' })).status).toBe(404);
    expect((await stack.rpc(`${S}/UpdateAgent`, { agent: { name: 'agents/phoenix', title: 'x' }, update_mask: 'title' })).status).toBe(404);
    expect((await stack.rpc(`${S}/CreateAgent`, { agent_id: 'phoenix', agent: {} })).status).toBe(409);

    const undeleted = await stack.rpc<{ agent: Agent }>(`${S}/UndeleteAgent`, { name: 'agents/phoenix' });
    expect(undeleted.status).toBe(200);
    expect(undeleted.body.agent).toMatchObject({ name: 'agents/phoenix', title: 'Phoenix' });
    expect(undeleted.body.agent.deleteTime).toBeUndefined();
    expect(await names({ filter: "title = 'Phoenix'" })).toEqual(['agents/phoenix']);
    expect((await stack.rpc(`${S}/UndeleteAgent`, { name: 'agents/phoenix' })).body).toMatchObject({ error: { status: 'FAILED_PRECONDITION' } });
    expect((await stack.rpc(`${S}/UndeleteAgent`, { name: 'agents/never' })).status).toBe(404);
  });

  it('ListAgents filters, orders by create_time or update_time only, and pages', async () => {
    for (const i of [0, 1, 2, 3, 4]) {
      await stack.rpc(`${S}/CreateAgent`, { agent_id: `fleet-${i}`, agent: { title: `Fleet ${i}`, state: i % 2 ? 'AGENT_STATE_OFF' : 'AGENT_STATE_ON', tags: i < 2 ? ['tags/db'] : [] } });
    }
    // Touch fleet-1 last, so update_time and create_time orders differ.
    await stack.rpc(`${S}/UpdateAgent`, { agent: { name: 'agents/fleet-1', description: 'touched' }, update_mask: 'description' });
    const fleet = "title : 'Fleet*'";
    expect(await names({ filter: fleet })).toEqual([4, 3, 2, 1, 0].map((i) => `agents/fleet-${i}`));
    expect(await names({ filter: fleet, order_by: 'create_time' })).toEqual([0, 1, 2, 3, 4].map((i) => `agents/fleet-${i}`));
    expect(await names({ filter: fleet, order_by: 'update_time desc' })).toEqual([1, 4, 3, 2, 0].map((i) => `agents/fleet-${i}`));
    for (const order of ['title', 'name', 'state desc']) {
      expectInvalid(await stack.rpc(`${S}/ListAgents`, { order_by: order }), /order_by: unknown field/);
    }
    expect(await names({ filter: `${fleet} AND state = AGENT_STATE_OFF`, order_by: 'create_time' })).toEqual(['agents/fleet-1', 'agents/fleet-3']);
    expect(await names({ filter: `${fleet} AND tags : "tags/db"`, order_by: 'create_time' })).toEqual(['agents/fleet-0', 'agents/fleet-1']);
    expect(await names({ filter: `${fleet} AND created_by = "users/alice"`, order_by: 'create_time' })).toHaveLength(5);
    expectInvalid(await stack.rpc(`${S}/ListAgents`, { filter: 'state = AGENT_STATE_SLEEPING' }), /state/);

    const seen: string[] = [];
    let token = '';
    do {
      const page: { body: ListAgents } = await stack.rpc<ListAgents>(`${S}/ListAgents`, { filter: fleet, order_by: 'create_time', page_size: 2, page_token: token });
      expect(page.body.agents.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.agents.map((a) => a.name));
      token = page.body.nextPageToken;
    } while (token);
    expect(seen).toEqual([0, 1, 2, 3, 4].map((i) => `agents/fleet-${i}`));
  });

  it('writes need AGENTS_WRITE; reads need only membership', async () => {
    const denied = await stack.rpc(`${S}/CreateAgent`, { agent_id: 'bobs', agent: {} }, BOB);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ error: { status: 'PERMISSION_DENIED', message: expect.stringMatching(/AGENTS_WRITE/) } });
    expect((await stack.rpc(`${S}/UpdateAgent`, { agent: { name: 'agents/warehouse-watch', title: 'x' }, update_mask: 'title' }, BOB)).status).toBe(403);
    expect((await stack.rpc(`${S}/DeleteAgent`, { name: 'agents/warehouse-watch' }, BOB)).status).toBe(403);
    expect((await stack.rpc(`${S}/UndeleteAgent`, { name: 'agents/warehouse-watch' }, BOB)).status).toBe(403);
    expect((await stack.rpc(`${S}/GetAgent`, { name: 'agents/warehouse-watch' }, BOB)).status).toBe(200);
    expect((await stack.rpc(`${S}/ListAgents`, {}, BOB)).status).toBe(200);
  });

  it('another organization never sees or changes acme agents', async () => {
    expect((await stack.rpc(`${S}/GetAgent`, { name: 'agents/warehouse-watch' }, GINA)).status).toBe(404);
    expect(await names({}, GINA)).toEqual(['agents/ledger-watch']);
    expect((await stack.rpc(`${S}/DeleteAgent`, { name: 'agents/warehouse-watch' }, GINA)).status).toBe(404);
    expect((await stack.rpc(`${S}/UpdateAgent`, { agent: { name: 'agents/warehouse-watch', title: 'x' }, update_mask: 'title' }, GINA)).status).toBe(404);
    expect((await stack.rpc(`${S}/UndeleteAgent`, { name: 'agents/phoenix' }, GINA)).status).toBe(404);
    expect((await stack.rpc<{ agent: Agent }>(`${S}/GetAgent`, { name: 'agents/warehouse-watch' })).body.agent.title).toBe('Warehouse watcher');
  });
});
