import { BOB, Stack } from './support/harness';

const S = 'svc.agentslos.v1.AgentSlosService';
type Body = Record<string, unknown>;
interface Record_ {
  name: string;
  score: number;
  notes?: string;
  session_name?: string;
  create_time: string;
}
interface Slo {
  name: string;
  display_name: string;
  target_value?: number;
  target_direction: string;
  healthy?: boolean;
  recent_records?: Record_[];
  create_time: string;
  delete_time?: string;
}

describe('agent SLOs (svc.agentslos.v1.AgentSlosService)', () => {
  let stack: Stack;
  const create = (body: Body) => stack.rpc<{ agent_slo: Slo }>(`${S}/CreateAgentSlo`, { parent: 'agents/slo-agent', ...body });
  const record = (slo: string, score: unknown, extra: Body = {}) =>
    stack.request<{ agent_slo: Slo; agent_slo_record: Record_ }>('POST', `/v1/${slo}:record`, { body: { score, ...extra } });
  const get = (name: string) => stack.request<{ agent_slo: Slo }>('GET', `/v1/${name}`);

  beforeAll(async () => {
    stack = await Stack.start();
    const agent = await stack.rpc('svc.nxagent.v2.AgentService/CreateAgent', { agent_id: 'slo-agent', agent: { title: 'SLO agent', prompt: 'p' } });
    expect(agent.status).toBe(200);
  });
  afterAll(async () => {
    await stack.destroy();
  });

  it('CreateAgentSlo answers snake_case, defaults the direction to AT_OR_ABOVE and nests under the agent', async () => {
    const res = await stack.request<{ agent_slo: Slo }>('POST', '/v1/agents/slo-agent/slos', {
      body: { agent_slo_id: 'accuracy', agent_slo: { display_name: 'Accuracy', target_value: 0.9, unit: '%' } },
    });
    expect(res.status).toBe(200);
    expect(res.body.agent_slo).toMatchObject({ name: 'agents/slo-agent/slos/accuracy', display_name: 'Accuracy', target_value: 0.9, target_direction: 'SLO_TARGET_DIRECTION_AT_OR_ABOVE' });
    expect(res.body.agent_slo.create_time).toEqual(expect.any(String));
    expect(JSON.stringify(res.body)).not.toMatch(/[a-z][A-Z]/);
    expect(res.body.agent_slo.healthy).toBeUndefined();
  });

  it('CreateAgentSlo requires display_name and target_value, a live agent, and AGENTS_WRITE', async () => {
    expect((await create({ agent_slo: { target_value: 1 } })).body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining('display_name') } });
    expect((await create({ agent_slo: { display_name: 'x' } })).body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining('target_value') } });
    expect((await create({ agent_slo: { display_name: 'x', target_value: 1, target_direction: 'UP' } })).status).toBe(400);
    expect((await create({ parent: 'agents/missing', agent_slo: { display_name: 'x', target_value: 1 } })).status).toBe(404);
    expect((await stack.rpc(`${S}/CreateAgentSlo`, { parent: 'agents/slo-agent', agent_slo: { display_name: 'x', target_value: 1 } }, BOB)).status).toBe(403);
  });

  it('health follows the latest score, holds at the boundary in both directions, and is omitted without a target', async () => {
    const above = (await create({ agent_slo_id: 'above', agent_slo: { display_name: 'Above', target_value: 10 } })).body.agent_slo.name;
    const below = (await create({ agent_slo_id: 'below', agent_slo: { display_name: 'Below', target_value: 10, target_direction: 'SLO_TARGET_DIRECTION_AT_OR_BELOW' } })).body.agent_slo.name;
    expect((await record(above, 10)).body.agent_slo.healthy).toBe(true);
    expect((await record(above, 9.999)).body.agent_slo.healthy).toBe(false);
    expect((await record(below, 10)).body.agent_slo.healthy).toBe(true);
    expect((await record(below, 10.001)).body.agent_slo.healthy).toBe(false);
    expect((await get(below)).body.agent_slo.healthy).toBe(false);
    // Clearing the target (an update without a mask replaces every mutable field) omits health.
    const cleared = await stack.request<{ agent_slo: Slo }>('PATCH', `/v1/${below}`, { body: { agent_slo: { display_name: 'Below' } } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.agent_slo).not.toHaveProperty('healthy');
    expect(cleared.body.agent_slo.target_direction).toBe('SLO_TARGET_DIRECTION_AT_OR_ABOVE');
  });

  it('UpdateAgentSlo with a mask changes only the named fields and recomputes health', async () => {
    const name = (await create({ agent_slo_id: 'latency', agent_slo: { display_name: 'Latency', target_value: 100, unit: 'ms' } })).body.agent_slo.name;
    expect((await record(name, 120)).body.agent_slo.healthy).toBe(true);
    const res = await stack.rpc<{ agent_slo: Slo }>(`${S}/UpdateAgentSlo`, {
      agent_slo: { name, target_direction: 'SLO_TARGET_DIRECTION_AT_OR_BELOW', display_name: 'ignored' },
      update_mask: 'target_direction',
    });
    expect(res.body.agent_slo).toMatchObject({ display_name: 'Latency', target_value: 100, healthy: false, target_direction: 'SLO_TARGET_DIRECTION_AT_OR_BELOW' });
  });

  it('RecordSloEvaluation refuses NaN and infinities (however spelled) and a missing score, appending nothing', async () => {
    const name = (await create({ agent_slo_id: 'finite', agent_slo: { display_name: 'Finite', target_value: 1 } })).body.agent_slo.name;
    for (const score of ['NaN', 'Infinity', '-Infinity', undefined, 'abc']) {
      const res = await record(name, score);
      expect([score, res.status, res.body]).toEqual([score, 400, { error: expect.objectContaining({ status: 'INVALID_ARGUMENT', message: expect.stringContaining('score') }) }]);
    }
    const huge = await stack.request('POST', `/v1/${name}:record`, { rawBody: '{"score": 1e999}' });
    expect(huge.status).toBe(400);
    const records = await stack.request<{ agent_slo_records: Record_[] }>('GET', `/v1/${name}/records`);
    expect(records.body.agent_slo_records).toEqual([]);
  });

  it('records are chronological, carry notes and session_name, and the SLO keeps the 24 latest', async () => {
    const name = (await create({ agent_slo_id: 'many', agent_slo: { display_name: 'Many', target_value: 5 } })).body.agent_slo.name;
    const first = await record(name, 0, { notes: 'first', session_name: 'agents/slo-agent/sessions/s1' });
    expect(first.body.agent_slo_record).toMatchObject({ name: `${name}/records/1`, score: 0, notes: 'first', session_name: 'agents/slo-agent/sessions/s1' });
    for (let i = 1; i < 26; i++) await record(name, i);
    const all = await stack.request<{ agent_slo_records: Record_[]; next_page_token: string }>('GET', `/v1/${name}/records?page_size=100`);
    expect(all.body.agent_slo_records.map((r) => r.score)).toEqual(Array.from({ length: 26 }, (_, i) => i));
    expect(all.body.next_page_token).toBe('');
    const desc = await stack.rpc<{ agent_slo_records: Record_[] }>(`${S}/ListAgentSloRecords`, { parent: name, order_by: 'create_time desc', page_size: 2 });
    expect(desc.body.agent_slo_records.map((r) => r.score)).toEqual([25, 24]);
    const slo = (await get(name)).body.agent_slo;
    expect(slo.recent_records?.map((r) => r.score)).toEqual(Array.from({ length: 24 }, (_, i) => i + 2));
    expect(slo.healthy).toBe(true);
    const list = await stack.request<{ agent_slos: Slo[] }>('GET', '/v1/agents/slo-agent/slos');
    const listed = list.body.agent_slos.find((s) => s.name === name);
    expect(listed?.recent_records).toHaveLength(24);
    expect(listed?.healthy).toBe(true);
  });

  it('DeleteAgentSlo deletes the SLO and its records', async () => {
    const name = (await create({ agent_slo_id: 'doomed', agent_slo: { display_name: 'Doomed', target_value: 1 } })).body.agent_slo.name;
    await record(name, 2);
    expect((await stack.request('DELETE', `/v1/${name}`)).status).toBe(200);
    const list = await stack.request<{ agent_slos: Slo[] }>('GET', '/v1/agents/slo-agent/slos');
    expect(list.body.agent_slos.map((s) => s.name)).not.toContain(name);
    expect((await stack.request('GET', `/v1/${name}/records`)).status).toBe(404);
    expect((await record(name, 3)).status).toBe(404);
  });
});
