// The read store is opened below; its modules use decorator metadata.
import 'reflect-metadata';
import { execFile } from 'node:child_process';
import { HEARTBEAT_KEY, type Heartbeat } from '@svc/infrastructure/projection/heartbeat';
import { createReadStore } from '@svc/infrastructure/read-store';
import { dumpReadModels } from './support/read-models';
import { BOB, CLI_MAIN, GINA, Stack, TEST_CONFIG_WITH_TELEMETRY } from './support/harness';
import { GAUGE_SQL, RATIO_SQL, type Indicator, type Relation } from './support/indicators';

const S = 'svc.goals.v1.IndicatorsService';
const R = 'svc.goals.v1.IndicatorRelationsService';

interface Activity {
  name: string;
  description: string;
  createTime: string;
}
interface ErrorBody {
  error: { code: number; status: string; message: string };
}

const ratio = (extra: Record<string, unknown> = {}) => ({
  display_name: 'Checkout availability',
  kind: 'INDICATOR_KIND_RATIO',
  unit: '%',
  query: { connections: ['connections/telemetry'], engine_sql: RATIO_SQL },
  ...extra,
});

describe('indicators v1 (svc.goals.v1.IndicatorsService, IndicatorRelationsService)', () => {
  let stack: Stack;
  const create = (body: Record<string, unknown>, as?: typeof BOB) => stack.rpc<{ indicator: Indicator } & ErrorBody>(`${S}/CreateIndicator`, body, as);
  const get = (name: string) => stack.rpc<{ indicator: Indicator } & ErrorBody>(`${S}/GetIndicator`, { name });
  const activities = (parent: string, extra: Record<string, unknown> = {}) =>
    stack.rpc<{ activities: Activity[]; nextPageToken: string } & ErrorBody>(`${S}/ListIndicatorActivities`, { parent, ...extra });
  const relations = (filter: string, extra: Record<string, unknown> = {}) =>
    stack.rpc<{ indicatorRelations: Relation[] } & ErrorBody>(`${R}/ListIndicatorRelations`, { filter, ...extra });
  const attach = (indicator: string, resource: string) =>
    stack.rpc<{ indicatorRelation: Relation } & ErrorBody>(`${R}/CreateIndicatorRelation`, { indicator_relation: { indicator, resource } });

  beforeAll(async () => {
    stack = await Stack.start({ config: TEST_CONFIG_WITH_TELEMETRY });
    for (const id of ['checkout-watch', 'queue-watch', 'other-watch']) {
      const res = await stack.rpc('svc.nxagent.v2.AgentService/CreateAgent', { agent_id: id, agent: { display_name: id } });
      expect(res.status).toBe(200);
    }
  });
  afterAll(async () => {
    await stack.destroy();
  });

  it('CreateIndicator writes the indicator, its first relation and the activity "Indicator created." together', async () => {
    const res = await stack.request<{ indicator: Indicator }>('POST', '/v1/indicators', {
      body: { indicator_id: 'checkout-availability', indicator: ratio({ query: { connections: ['connections/telemetry'], engine_sql: RATIO_SQL, status: { error: 'forged' } } }), initial_resource: 'agents/checkout-watch' },
    });
    expect(res.status).toBe(200);
    const indicator = res.body.indicator;
    expect(indicator).toMatchObject({ name: 'indicators/checkout-availability', displayName: 'Checkout availability', kind: 'INDICATOR_KIND_RATIO', unit: '%' });
    // query.status is the server's: validated now, the forged error ignored.
    expect(indicator.query.status).toEqual({ validateTime: indicator.createTime });
    const rel = await relations(`indicator = 'indicators/checkout-availability'`);
    expect(rel.body.indicatorRelations.map((r) => r.resource)).toEqual(['agents/checkout-watch']);
    const log = await activities('indicators/checkout-availability');
    expect(log.body.activities.map((a) => a.description)).toEqual(['Indicator created.']);
    const byRest = await stack.request<{ indicator: Indicator }>('GET', '/v1/indicators/checkout-availability');
    expect(byRest.body.indicator).toEqual(indicator);
  });

  it('CreateIndicator generates a kebab-case ID when none is given and refuses one that is not kebab-case', async () => {
    const res = await create({ indicator: ratio(), initial_resource: 'agents/checkout-watch' });
    expect(res.status).toBe(200);
    expect(res.body.indicator.name).toMatch(/^indicators\/[a-z0-9]+(-[a-z0-9]+)*$/);
    const bad = await create({ indicator_id: 'Not_Kebab', indicator: ratio(), initial_resource: 'agents/checkout-watch' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/kebab-case/);
    const taken = await create({ indicator_id: 'checkout-availability', indicator: ratio(), initial_resource: 'agents/checkout-watch' });
    expect(taken.status).toBe(409);
  });

  it.each([
    ['display_name', { display_name: undefined }, /display_name is required/],
    ['kind', { kind: undefined }, /kind is required/],
    ['query.connections', { query: { connections: [], engine_sql: RATIO_SQL } }, /connections is required/],
    ['query.engine_sql', { query: { connections: ['connections/telemetry'] } }, /engine_sql is required/],
    ['a missing placeholder', { query: { connections: ['connections/telemetry'], engine_sql: RATIO_SQL.replace('@resolution', "INTERVAL 1 MINUTE") } }, /must reference @resolution/],
    ['a placeholder only in a comment-like string', { query: { connections: ['connections/telemetry'], engine_sql: RATIO_SQL.replace('ts < @end_time', "'@end_time' = 'x'") } }, /must reference @end_time/],
    ['a column missing for the kind', { query: { connections: ['connections/telemetry'], engine_sql: RATIO_SQL.replace('AS good_events', 'AS good') } }, /lacks column good_events/],
    ['a GAUGE shape for a RATIO', { query: { connections: ['connections/telemetry'], engine_sql: GAUGE_SQL } }, /lacks column good_events, total_events/],
    ['a table outside the declared schema', { query: { connections: ['connections/telemetry'], engine_sql: RATIO_SQL.replace('FROM requests', 'FROM payments') } }, /table 'payments'.*declared schema/],
    ['a column outside the declared schema', { query: { connections: ['connections/telemetry'], engine_sql: RATIO_SQL.replace('COUNTIF(ok)', 'COUNTIF(success)') } }, /column 'success'/],
    ['a connection that does not exist', { query: { connections: ['connections/nope'], engine_sql: RATIO_SQL } }, /connections\/nope/],
    ['SQL that does not parse', { query: { connections: ['connections/telemetry'], engine_sql: 'SELEC nothing' } }, /does not parse/],
  ])('CreateIndicator refuses %s with INVALID_ARGUMENT and appends nothing', async (_label, override, message) => {
    const res = await create({ indicator_id: 'refused', indicator: { ...ratio(), ...override }, initial_resource: 'agents/checkout-watch' });
    expect(res.status).toBe(400);
    expect(res.body.error.status).toBe('INVALID_ARGUMENT');
    expect(res.body.error.message).toMatch(message);
    expect((await get('indicators/refused')).status).toBe(404);
  });

  it('CreateIndicator on a connection without a declared schema plans against its database: one that cannot be reached answers UNAVAILABLE naming it, and appends nothing', async () => {
    const res = await create({ indicator_id: 'refused', indicator: { ...ratio(), query: { connections: ['connections/warehouse'], engine_sql: RATIO_SQL } }, initial_resource: 'agents/checkout-watch' });
    expect(res.status).toBe(503);
    expect(res.body.error.status).toBe('UNAVAILABLE');
    expect(res.body.error.message).toMatch(/connections\/warehouse/);
    expect(res.body.error.message).not.toMatch(/inline-secret/);
    expect((await get('indicators/refused')).status).toBe(404);
  });

  it('CreateIndicator accepts a GAUGE over a qualified table and requires an existing initial_resource', async () => {
    const gauge = { display_name: 'Queue depth', kind: 'INDICATOR_KIND_GAUGE', query: { connections: ['connections/telemetry'], engine_sql: GAUGE_SQL } };
    expect((await create({ indicator_id: 'no-initial', indicator: gauge })).body.error.message).toMatch(/initial_resource is required/);
    const missing = await create({ indicator_id: 'no-initial', indicator: gauge, initial_resource: 'agents/ghost' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toMatch(/initial_resource 'agents\/ghost' does not exist/);
    const wrongKind = await create({ indicator_id: 'no-initial', indicator: gauge, initial_resource: 'notes/x' });
    expect(wrongKind.body.error.message).toMatch(/agent, issue, investigation or monitoring plan/);
    const ok = await create({ indicator_id: 'queue-depth', indicator: gauge, initial_resource: 'agents/queue-watch' });
    expect(ok.status).toBe(200);
    expect(ok.body.indicator.kind).toBe('INDICATOR_KIND_GAUGE');
  });

  it('writes need INDICATORS_WRITE, and other organizations see nothing', async () => {
    const denied = await create({ indicator_id: 'bobs', indicator: ratio(), initial_resource: 'agents/checkout-watch' }, BOB);
    expect(denied.status).toBe(403);
    const other = await stack.rpc<ErrorBody>(`${S}/GetIndicator`, { name: 'indicators/checkout-availability' }, GINA);
    expect(other.status).toBe(404);
  });

  it('BatchGetIndicators answers in input order, and any missing name fails the whole batch with NOT_FOUND', async () => {
    const res = await stack.request<{ indicators: Indicator[] } & ErrorBody>('POST', '/v1/indicators:batchGet', {
      body: { names: ['indicators/queue-depth', 'indicators/checkout-availability'] },
    });
    expect(res.status).toBe(200);
    expect(res.body.indicators.map((i) => i.name)).toEqual(['indicators/queue-depth', 'indicators/checkout-availability']);
    const missing = await stack.rpc<ErrorBody>(`${S}/BatchGetIndicators`, { names: ['indicators/queue-depth', 'indicators/ghost'] });
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toMatch(/indicators\/ghost/);
  });

  it("ListIndicators filters on kind", async () => {
    const res = await stack.request<{ indicators: Indicator[] }>('GET', `/v1/indicators?filter=${encodeURIComponent("kind = 'INDICATOR_KIND_GAUGE'")}`);
    expect(res.status).toBe(200);
    expect(res.body.indicators.map((i) => i.name)).toEqual(['indicators/queue-depth']);
    const ratios = await stack.rpc<{ indicators: Indicator[] }>(`${S}/ListIndicators`, { filter: "kind = 'INDICATOR_KIND_RATIO' AND query.connections:'connections/telemetry'" });
    expect(ratios.status).toBe(200);
    expect(ratios.body.indicators.map((i) => i.kind)).toEqual(ratios.body.indicators.map(() => 'INDICATOR_KIND_RATIO'));
    expect(ratios.body.indicators.map((i) => i.name)).toContain('indicators/checkout-availability');
  });

  it('UpdateIndicator needs a mask, drops server-managed paths, and writes the given activity or a generic one', async () => {
    const before = (await get('indicators/checkout-availability')).body.indicator;
    const noMask = await stack.rpc<ErrorBody>(`${S}/UpdateIndicator`, { indicator: { name: before.name, display_name: 'x' } });
    expect(noMask.status).toBe(400);
    expect(noMask.body.error.message).toMatch(/update_mask is required/);
    // AIP-134 over REST: the body is the resource; the mask and the note are query parameters.
    const query = `update_mask=${encodeURIComponent('display_name,create_time,query.status.error')}&activity_description=${encodeURIComponent('Renamed for the dashboard.')}`;
    const res = await stack.request<{ indicator: Indicator }>('PATCH', `/v1/indicators/checkout-availability?${query}`, {
      body: { display_name: 'Checkout success', create_time: '2000-01-01T00:00:00Z', query: { status: { error: 'forged' } } },
    });
    expect(res.status).toBe(200);
    expect(res.body.indicator.displayName).toBe('Checkout success');
    expect(res.body.indicator.createTime).toBe(before.createTime);
    expect(res.body.indicator.query.status).toEqual(before.query.status);
    await stack.rpc(`${S}/UpdateIndicator`, { indicator: { name: before.name, description: 'Share of good checkouts' }, update_mask: 'description' });
    // A mask of only server-managed paths changes nothing and writes no activity.
    const statusOnly = await stack.rpc<{ indicator: Indicator }>(`${S}/UpdateIndicator`, { indicator: { name: before.name, query: { status: { error: 'x' } } }, update_mask: 'query.status' });
    expect(statusOnly.status).toBe(200);
    expect(statusOnly.body.indicator.query.status).toEqual(before.query.status);
    const log = await stack.request<{ activities: Activity[] }>('GET', `/v1/${before.name}/activities`);
    expect(log.body.activities.map((a) => a.description)).toEqual(['Indicator updated.', 'Renamed for the dashboard.', 'Indicator created.']);
  });

  it('UpdateIndicator plans a changed query again and refuses one that no longer fits the kind', async () => {
    const bad = await stack.rpc<ErrorBody>(`${S}/UpdateIndicator`, {
      indicator: { name: 'indicators/queue-depth', query: { connections: ['connections/telemetry'], engine_sql: RATIO_SQL } },
      update_mask: 'query',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/unexpected column good_events, total_events/);
    const asRatio = await stack.rpc<{ indicator: Indicator }>(`${S}/UpdateIndicator`, {
      indicator: { name: 'indicators/queue-depth', kind: 'INDICATOR_KIND_RATIO' },
      update_mask: 'kind',
    });
    expect(asRatio.status).toBe(400);
  });

  it('UpdateIndicator accepts nested mask paths: query.engine_sql, query.connections, query.description change only what they name', async () => {
    const before = (await get('indicators/checkout-availability')).body.indicator;
    const narrower = RATIO_SQL.replace('COUNT(*)', 'COUNT(ts)');
    const sql = await stack.rpc<{ indicator: Indicator }>(`${S}/UpdateIndicator`, {
      indicator: { name: before.name, query: { engine_sql: narrower, connections: ['connections/ghost'], description: 'not in the mask' } },
      update_mask: 'query.engine_sql',
    });
    expect(sql.body).not.toHaveProperty('error');
    expect(sql.body.indicator.query).toMatchObject({ connections: before.query.connections, engineSql: narrower });
    expect(sql.body.indicator.query.description).toBe(before.query.description);
    const rest = await stack.request<{ indicator: Indicator }>('PATCH', `/v1/indicators/checkout-availability?update_mask=${encodeURIComponent('query.description,query.connections')}`, {
      body: { query: { connections: ['connections/telemetry'], description: 'Checkout requests, by bucket' } },
    });
    expect(rest.body).not.toHaveProperty('error');
    expect(rest.body.indicator.query).toMatchObject({ connections: ['connections/telemetry'], engineSql: narrower, description: 'Checkout requests, by bucket' });
    const unknown = await stack.rpc<ErrorBody>(`${S}/UpdateIndicator`, { indicator: { name: before.name, query: {} }, update_mask: 'query.engine' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toMatch(/unknown field 'query.engine'/);
  });

  it('relations: unique per (indicator, resource) among live ones, re-attach after detach, filters on resource', async () => {
    const first = await attach('indicators/queue-depth', 'agents/other-watch');
    expect(first.status).toBe(200);
    expect(first.body.indicatorRelation).toMatchObject({ indicator: 'indicators/queue-depth', resource: 'agents/other-watch' });
    expect(first.body.indicatorRelation.name).toMatch(/^indicatorRelations\//);
    const dup = await attach('indicators/queue-depth', 'agents/other-watch');
    expect(dup.status).toBe(409);
    const del = await stack.rpc(`${R}/DeleteIndicatorRelation`, { name: first.body.indicatorRelation.name });
    expect(del.status).toBe(200);
    expect((await relations(`resource = 'agents/other-watch'`)).body.indicatorRelations).toEqual([]);
    const shown = await relations(`resource = 'agents/other-watch'`, { show_deleted: true });
    expect(shown.body.indicatorRelations.map((r) => r.name)).toEqual([first.body.indicatorRelation.name]);
    const again = await attach('indicators/queue-depth', 'agents/other-watch');
    expect(again.status).toBe(200);
    expect(again.body.indicatorRelation.name).not.toBe(first.body.indicatorRelation.name);
    expect((await attach('indicators/ghost', 'agents/other-watch')).status).toBe(404);
    expect((await attach('indicators/queue-depth', 'agents/ghost')).status).toBe(400);
  });

  it('concurrent creates of the same relation: exactly one succeeds', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => attach('indicators/checkout-availability', 'agents/queue-watch')));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    const live = await relations(`indicator = 'indicators/checkout-availability' AND resource = 'agents/queue-watch'`);
    expect(live.body.indicatorRelations).toHaveLength(1);
  });

  it('Delete cascades to live relations with the same delete_time; Undelete restores exactly those', async () => {
    const name = 'indicators/cascade';
    await create({ indicator_id: 'cascade', indicator: ratio(), initial_resource: 'agents/checkout-watch' });
    const kept = await attach(name, 'agents/queue-watch');
    const detached = await attach(name, 'agents/other-watch');
    await stack.rpc(`${R}/DeleteIndicatorRelation`, { name: detached.body.indicatorRelation.name });
    const detachedTime = (await relations(`indicator = '${name}'`, { show_deleted: true })).body.indicatorRelations.find((r) => r.resource === 'agents/other-watch')?.deleteTime;

    expect((await stack.request('DELETE', '/v1/indicators/cascade')).status).toBe(200);
    const deleted = (await get(name)).body.indicator;
    expect(deleted.deleteTime).toBeDefined();
    expect((await relations(`indicator = '${name}'`)).body.indicatorRelations).toEqual([]);
    const all = (await relations(`indicator = '${name}'`, { show_deleted: true })).body.indicatorRelations;
    expect(all.filter((r) => r.resource !== 'agents/other-watch').map((r) => r.deleteTime)).toEqual([deleted.deleteTime, deleted.deleteTime]);
    expect(all.find((r) => r.resource === 'agents/other-watch')?.deleteTime).toBe(detachedTime);
    expect((await stack.rpc(`${S}/ListIndicators`, { filter: `name = '${name}'` })).body).toMatchObject({ indicators: [] });

    const restored = await stack.request<{ indicator: Indicator }>('POST', '/v1/indicators/cascade:undelete');
    expect(restored.status).toBe(200);
    expect(restored.body.indicator.deleteTime).toBeUndefined();
    const live = (await relations(`indicator = '${name}'`)).body.indicatorRelations.map((r) => r.resource).sort();
    expect(live).toEqual(['agents/checkout-watch', 'agents/queue-watch']);
    expect(kept.status).toBe(200);
    const log = (await activities(name)).body.activities.map((a) => a.description);
    expect(log.slice(0, 2)).toEqual(['Indicator restored.', 'Indicator archived.']);
  });

  it('ReportIndicatorQueryError: non-empty, truncated, sets the error and validate_time; the same text adds no second activity', async () => {
    const name = 'indicators/queue-depth';
    const empty = await stack.request<ErrorBody>('POST', '/v1/indicators/queue-depth:reportQueryError', { body: { error: '  ' } });
    expect(empty.status).toBe(400);
    const long = 'x'.repeat(5000);
    const first = await stack.request<{ indicator: Indicator }>('POST', '/v1/indicators/queue-depth:reportQueryError', { body: { error: long } });
    expect(first.status).toBe(200);
    expect(first.body.indicator.query.status?.error).toBe('x'.repeat(4000));
    const second = await stack.request<{ indicator: Indicator }>('POST', '/v1/indicators/queue-depth:reportQueryError', { body: { error: long } });
    expect(second.body.indicator.query.status?.validateTime! > first.body.indicator.query.status!.validateTime!).toBe(true);
    const log = (await activities(name)).body.activities.filter((a) => a.description.startsWith('Query error reported'));
    expect(log).toHaveLength(1);
  });

  it('CompileIndicatorQuery substitutes typed literals, resolves the connections, and persists nothing', async () => {
    const before = (await get('indicators/checkout-availability')).body.indicator;
    const res = await stack.request<{ queryRequest: { '@type': string; sql: string; connections: Array<Record<string, unknown>> } }>(
      'POST',
      '/v1/indicators/checkout-availability:compileQuery',
      { body: { start_time: '2024-01-01T00:00:00Z', end_time: '2024-01-02T00:00:00Z', resolution: '300s' } },
    );
    expect(res.status).toBe(200);
    expect(res.body.queryRequest['@type']).toBe('type.googleapis.com/svc.query.v2.QueryRequest');
    expect(res.body.queryRequest.sql).toContain("TIMESTAMP '2024-01-01T00:00:00.000Z'");
    expect(res.body.queryRequest.sql).toContain('INTERVAL 300 SECOND');
    expect(res.body.queryRequest.sql).not.toContain('@');
    expect(res.body.queryRequest.connections).toEqual([expect.objectContaining({ name: 'connections/telemetry', connectionType: 'CONNECTION_TYPE_SQLDB' })]);
    const bad = await stack.request<ErrorBody>('POST', '/v1/indicators/checkout-availability:compileQuery', { body: { start_time: '2024-01-01T00:00:00Z', end_time: '2024-01-02T00:00:00Z', resolution: 'soon' } });
    expect(bad.status).toBe(400);
    expect((await get(before.name)).body.indicator).toEqual(before);
  });

  it('PurgeIndicators: a dry run counts and samples soft-deleted matches; force removes indicators, relations and activities', async () => {
    await create({ indicator_id: 'doomed', indicator: ratio(), initial_resource: 'agents/other-watch' });
    await stack.request('DELETE', '/v1/indicators/doomed');
    const dry = await stack.request<{ purgeCount: string; purgeSample: string[] }>('POST', '/v1/indicators:purge', { body: { filter: "display_name = 'Checkout availability'" } });
    expect(dry.status).toBe(200);
    expect(dry.body).toEqual({ purgeCount: '1', purgeSample: ['indicators/doomed'] });
    expect((await get('indicators/doomed')).status).toBe(200);

    const force = await stack.request<{ purgeCount: string; purgeSample: string[] }>('POST', '/v1/indicators:purge', { body: { filter: "display_name = 'Checkout availability'", force: true } });
    expect(force.body.purgeCount).toBe('1');
    expect((await get('indicators/doomed')).status).toBe(404);
    expect((await stack.rpc(`${S}/ListIndicators`, { show_deleted: true, filter: "name = 'indicators/doomed'" })).body).toMatchObject({ indicators: [] });
    expect((await relations(`indicator = 'indicators/doomed'`, { show_deleted: true })).body.indicatorRelations).toEqual([]);
    expect((await activities('indicators/doomed')).status).toBe(404);
    const purged = await activities('indicators/doomed', { show_deleted: true });
    expect(purged.body.activities.map((a) => a.description)).toEqual(['Indicator archived.', 'Indicator created.']);
    // Live indicators are never purged, whatever the filter.
    expect((await get('indicators/queue-depth')).status).toBe(200);
    const again = await create({ indicator_id: 'doomed', indicator: ratio(), initial_resource: 'agents/other-watch' });
    expect(again.status).toBe(409);
  });

  // Last: it stops the stack.
  it('a rebuild of the indicators projection from the log gives the same indicators, relations and activities (purge included)', async () => {
    const collections = ['indicators', 'indicatorRelations', 'indicator-activities'];
    const dump = () => dumpReadModels(stack.dataDir, collections);
    const before = await dump();
    expect(before['indicator-activities'].some((a) => a.deleteTime !== undefined)).toBe(true);
    await stack.stop();
    // Age the last heartbeat so the CLI rebuilds in its own process (no projector is running).
    const reads = await createReadStore({ SVC_DATA_DIR: stack.dataDir });
    const beat = await reads.getMeta<Heartbeat>(HEARTBEAT_KEY);
    await reads.putMeta(HEARTBEAT_KEY, { ...beat, at: new Date(Date.now() - 60_000).toISOString() });
    await reads.close();
    const env = { ...process.env, SVC_DATA_DIR: stack.dataDir, EVENTSTORE_URL: '', MONGODB_URL: '' };
    const code = await new Promise<number>((resolve) =>
      execFile(process.execPath, [CLI_MAIN, 'projections', 'rebuild', 'indicators', '--json'], { env }, (error) => resolve(error ? Number(error.code ?? 1) : 0)),
    );
    expect(code).toBe(0);
    expect(await dump()).toEqual(before);
  });
});
