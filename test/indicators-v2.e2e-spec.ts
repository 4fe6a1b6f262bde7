import * as fs from 'node:fs';
import * as path from 'node:path';
import { SPEC_METHODS } from '@svc/contracts/catalog';
import { BOB, GINA, REQUEST_INFO, Stack, TEST_CONFIG_WITH_TELEMETRY, type Response } from './support/harness';
import { GAUGE_SQL, RATIO_SQL, type Indicator, type Relation } from './support/indicators';

const S2 = 'svc.observability.v1.IndicatorsService';
const R2 = 'svc.observability.v1.IndicatorRelationsService';
const R1 = 'svc.goals.v1.IndicatorRelationsService';

interface Indicators {
  indicators: Indicator[];
  nextPageToken: string;
}
interface Relations {
  indicatorRelations: Relation[];
  nextPageToken: string;
}

const AVAILABILITY = `      - id: checkout-availability
        display_name: Checkout availability
        description: Good checkout requests over all
        kind: INDICATOR_KIND_RATIO
        unit: "%"
        query: {connections: [connections/telemetry], engine_sql: "${RATIO_SQL}", description: From the request log}
        resources: [agents/checkout-watch]
`;
const QUEUE = `      - id: queue-depth
        display_name: Queue depth
        kind: INDICATOR_KIND_GAUGE
        unit: jobs
        query: {connections: [connections/telemetry], engine_sql: "${GAUGE_SQL}"}
`;

/** TEST_CONFIG_WITH_TELEMETRY with an `indicators_v2:` section in acme (globex has none). */
function withAcmeIndicators(entries: string): string {
  const globex = TEST_CONFIG_WITH_TELEMETRY.indexOf('  - id: globex');
  return `${TEST_CONFIG_WITH_TELEMETRY.slice(0, globex)}    indicators_v2:\n${entries}${TEST_CONFIG_WITH_TELEMETRY.slice(globex)}`;
}

function expectError(res: Pick<Response<unknown>, 'status' | 'body'>, status: number, code: string, message?: RegExp): void {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ error: { status: code, ...(message ? { message: expect.stringMatching(message) } : {}) } });
}

describe('indicators v2 (frozen): seeded from the operator configuration, read through /v2', () => {
  let stack: Stack;
  const list = (query = '', as?: typeof GINA) => stack.request<Indicators>('GET', `/v2/indicators${query}`, { as });
  const relations = (body: Record<string, unknown> = {}, as?: typeof GINA) => stack.rpc<Relations>(`${R2}/ListIndicatorRelations`, body, as);
  /** Position of the newest event of the log, read with the operator CLI. */
  const head = async () => {
    const res = await stack.cli('events', '--reverse', '--limit', '1', '--json');
    expect(res.code).toBe(0);
    return (JSON.parse(res.stdout) as { events: Array<{ position: string }> }).events[0].position;
  };
  const apply = async (name: string, config: string) => {
    const file = path.join(stack.dataDir, name);
    fs.writeFileSync(file, config);
    const res = await stack.cli('config', 'apply', file, '--json');
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const report = JSON.parse(res.stdout) as { changes: number; projected: boolean };
    expect(report.projected).toBe(true);
    return report.changes;
  };

  beforeAll(async () => {
    stack = await Stack.start({ config: withAcmeIndicators(AVAILABILITY + QUEUE) });
    // A v1 indicator beside them: neither version's reads show the other's.
    expect((await stack.rpc('svc.nxagent.v2.AgentService/CreateAgent', { agent_id: 'checkout-watch', agent: { display_name: 'w' } })).status).toBe(200);
    const v1 = await stack.request('POST', '/v1/indicators', {
      body: {
        indicator_id: 'checkout-availability',
        indicator: { display_name: 'V1 availability', kind: 'INDICATOR_KIND_RATIO', query: { connections: ['connections/telemetry'], engine_sql: RATIO_SQL } },
        initial_resource: 'agents/checkout-watch',
      },
    });
    expect(v1.status).toBe(200);
  });
  afterAll(async () => {
    await stack.destroy();
  });

  it('GetIndicator answers the configured indicator with its query status', async () => {
    const res = await stack.request<{ indicator: Indicator }>('GET', '/v2/indicators-v2/checkout-availability');
    expect(res.status).toBe(200);
    expect(res.body.indicator).toEqual({
      name: 'indicators-v2/checkout-availability',
      displayName: 'Checkout availability',
      description: 'Good checkout requests over all',
      kind: 'INDICATOR_KIND_RATIO',
      unit: '%',
      query: { connections: ['connections/telemetry'], engineSql: RATIO_SQL, description: 'From the request log', status: { validateTime: expect.stringMatching(/^20\d\d-/) } },
      etag: expect.stringMatching(/^[\w-]{22}$/),
      createTime: expect.stringMatching(/^20\d\d-/),
      updateTime: expect.any(String),
    });
    expectError(await stack.request('GET', '/v2/indicators-v2/nope'), 404, 'NOT_FOUND');
    // The spec gives v2 REST paths only: its service is not served on RPC paths.
    expectError(await stack.rpc(`${S2}/GetIndicator`, { name: 'indicators-v2/checkout-availability' }), 404, 'NOT_FOUND');
    // Reads need only membership.
    expect((await stack.request('GET', '/v2/indicators-v2/queue-depth', { as: BOB })).status).toBe(200);
  });

  it('ListIndicators filters, orders and pages like v1', async () => {
    const all = await list('?order_by=display_name');
    expect(all.status).toBe(200);
    expect(all.body.indicators.map((i) => i.name)).toEqual(['indicators-v2/checkout-availability', 'indicators-v2/queue-depth']);
    expect(all.body.indicators[0]).toEqual((await stack.request<{ indicator: Indicator }>('GET', '/v2/indicators-v2/checkout-availability')).body.indicator);
    const desc = await list(`?order_by=${encodeURIComponent('display_name desc')}`);
    expect(desc.body.indicators.map((i) => i.name)).toEqual(['indicators-v2/queue-depth', 'indicators-v2/checkout-availability']);
    const gauges = await list(`?filter=${encodeURIComponent("kind = 'INDICATOR_KIND_GAUGE'")}`);
    expect(gauges.body.indicators.map((i) => [i.name, i.unit])).toEqual([['indicators-v2/queue-depth', 'jobs']]);
    const first = await list('?order_by=display_name&page_size=1');
    expect(first.body.indicators.map((i) => i.name)).toEqual(['indicators-v2/checkout-availability']);
    expect(first.body.nextPageToken).not.toBe('');
    const second = await list(`?order_by=display_name&page_size=1&page_token=${first.body.nextPageToken}`);
    expect(second.body.indicators.map((i) => i.name)).toEqual(['indicators-v2/queue-depth']);
    expectError(await list(`?filter=${encodeURIComponent('colour = 1')}`), 400, 'INVALID_ARGUMENT', /colour/);
  });

  it('v1 and v2 are separate: neither ListIndicators nor ListIndicatorRelations shows the other version', async () => {
    const v1 = await stack.request<Indicators>('GET', '/v1/indicators');
    expect(v1.body.indicators.map((i) => i.name)).toEqual(['indicators/checkout-availability']);
    expect((await list()).body.indicators.map((i) => i.name).sort()).toEqual(['indicators-v2/checkout-availability', 'indicators-v2/queue-depth']);
    const v1Relations = await stack.rpc<Relations>(`${R1}/ListIndicatorRelations`, {});
    expect(v1Relations.body.indicatorRelations.map((r) => r.indicator)).toEqual(['indicators/checkout-availability']);
    expect((await relations()).body.indicatorRelations.map((r) => r.indicator)).toEqual(['indicators-v2/checkout-availability']);
  });

  it('ListIndicatorRelations (v2) serves the configured relations on its RPC path, filterable by indicator', async () => {
    const res = await relations({ filter: "indicator = 'indicators-v2/checkout-availability'" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      indicatorRelations: [
        {
          name: expect.stringMatching(/^indicatorRelations\/v2-checkout-availability-[0-9a-f]{12}$/),
          indicator: 'indicators-v2/checkout-availability',
          resource: 'agents/checkout-watch',
          createTime: expect.any(String),
          updateTime: expect.any(String),
        },
      ],
      nextPageToken: '',
    });
    expect((await relations({ filter: "indicator = 'indicators-v2/queue-depth'" })).body.indicatorRelations).toEqual([]);
    expect((await relations({ filter: "resource = 'agents/checkout-watch'" })).body.indicatorRelations).toHaveLength(1);
    expectError(await relations({ filter: 'colour = 1' }), 400, 'INVALID_ARGUMENT', /colour/);
  });

  it('tenant isolation: globex has no v2 indicators and cannot read acme’s', async () => {
    expect((await list('?show_deleted=true', GINA)).body.indicators).toEqual([]);
    expect((await relations({ show_deleted: true }, GINA)).body.indicatorRelations).toEqual([]);
    expectError(await stack.request('GET', '/v2/indicators-v2/checkout-availability', { as: GINA }), 404, 'NOT_FOUND');
    expectError(
      await stack.request('POST', '/v2/indicators-v2/checkout-availability:compileQuery', {
        as: GINA,
        body: { start_time: '2024-01-01T00:00:00Z', end_time: '2024-01-02T00:00:00Z', resolution: '300s' },
      }),
      404,
      'NOT_FOUND',
    );
  });

  it('CompileIndicatorQuery substitutes typed literals, resolves the connections, and persists nothing', async () => {
    const before = await head();
    const indicator = (await stack.request<{ indicator: Indicator }>('GET', '/v2/indicators-v2/queue-depth')).body.indicator;
    const window = { start_time: '2024-01-01T00:00:00Z', end_time: '2024-01-02T00:00:00Z', resolution: '300s' };
    const res = await stack.request<{ queryRequest: { '@type': string; sql: string; connections: Array<Record<string, unknown>> }; indicator: Indicator }>(
      'POST',
      '/v2/indicators-v2/queue-depth:compileQuery',
      { body: window },
    );
    expect(res.status).toBe(200);
    expect(res.body.queryRequest['@type']).toBe('type.googleapis.com/svc.query.v2.QueryRequest');
    expect(res.body.queryRequest.sql).toContain("TIMESTAMP '2024-01-01T00:00:00.000Z'");
    expect(res.body.queryRequest.sql).toContain("TIMESTAMP '2024-01-02T00:00:00.000Z'");
    expect(res.body.queryRequest.sql).toContain('INTERVAL 300 SECOND');
    expect(res.body.queryRequest.sql).not.toContain('@');
    expect(res.body.queryRequest.connections).toEqual([expect.objectContaining({ name: 'connections/telemetry', connectionType: 'CONNECTION_TYPE_SQLDB' })]);
    expect(res.body.indicator).toEqual(indicator);
    expectError(await stack.request('POST', '/v2/indicators-v2/nope:compileQuery', { body: window }), 404, 'NOT_FOUND');
    expectError(await stack.request('POST', '/v2/indicators-v2/queue-depth:compileQuery', { body: { ...window, end_time: '2023-12-31T00:00:00Z' } }), 400, 'INVALID_ARGUMENT', /end_time must be after/);
    expectError(await stack.request('POST', '/v2/indicators-v2/queue-depth:compileQuery', { body: { ...window, resolution: 'soon' } }), 400, 'INVALID_ARGUMENT', /resolution/);
    // The v1 indicator of the same ID is not a v2 indicator's to compile, nor the other way round.
    expect((await stack.request('POST', '/v1/indicators/queue-depth:compileQuery', { body: window })).status).toBe(404);
    expect(await head()).toBe(before);
  });

  it('every frozen write answers FAILED_PRECONDITION / FEATURE_READ_ONLY for an admin and changes nothing', async () => {
    const everything = async () => ({
      indicators: (await list('?show_deleted=true')).body,
      relations: (await relations({ show_deleted: true })).body,
      head: await head(),
    });
    const before = await everything();
    const frozen = SPEC_METHODS.filter((m) => m.area === 'indicatorsv2' && m.frozen);
    expect(frozen.map((m) => m.method).sort()).toEqual(
      ['CreateIndicator', 'CreateIndicatorRelation', 'DeleteIndicator', 'DeleteIndicatorRelation', 'ReportIndicatorQueryError', 'UpdateIndicator'].sort(),
    );
    const relation = before.relations.indicatorRelations[0].name;
    for (const method of frozen) {
      // Relation writes have no path in the spec: they are called on their RPC path.
      const routes = method.rest ?? [`POST /${method.service}/${method.method}`];
      expect(routes).toHaveLength(1);
      const [verb, template] = routes[0].split(' ');
      const url = template.replace(/\{[^=}]+=indicators-v2\/\*\}/, 'indicators-v2/checkout-availability');
      const body =
        verb === 'DELETE'
          ? undefined
          : {
              indicator_id: 'hijack',
              indicator: { display_name: 'Hijacked', unit: '%' },
              update_mask: 'display_name',
              error: 'boom',
              name: relation,
              indicator_relation: { indicator: 'indicators-v2/checkout-availability', resource: 'agents/other' },
            };
      const res = await stack.request(verb, url, { body });
      expectError(res, 400, 'FAILED_PRECONDITION', /read-only/);
      expect((res.body as { error: { details: unknown[] } }).error.details).toEqual([
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'FEATURE_READ_ONLY', domain: 'svc', metadata: {} },
        REQUEST_INFO,
      ]);
    }
    expect(await everything()).toEqual(before);
    expectError(await stack.request('GET', '/v2/indicators-v2/hijack'), 404, 'NOT_FOUND');
  });

  // Last: it changes the configuration.
  it('re-applying the configuration deletes what left it (relations too), is idempotent, and an entry that comes back is undeleted', async () => {
    const relation = (await relations()).body.indicatorRelations[0];
    const moved = AVAILABILITY.replace('resources: [agents/checkout-watch]', 'resources: [issues/later]');
    expect(await apply('without-queue.yaml', withAcmeIndicators(moved))).toBeGreaterThan(0);
    expect((await list()).body.indicators.map((i) => i.name)).toEqual(['indicators-v2/checkout-availability']);
    const shown = await list(`?show_deleted=true&filter=${encodeURIComponent("name = 'indicators-v2/queue-depth'")}`);
    expect(shown.body.indicators).toEqual([expect.objectContaining({ name: 'indicators-v2/queue-depth', deleteTime: expect.stringMatching(/^20\d\d-/) })]);
    // Get answers a deleted indicator too, with its delete time.
    expect((await stack.request<{ indicator: Indicator }>('GET', '/v2/indicators-v2/queue-depth')).body.indicator.deleteTime).toEqual(shown.body.indicators[0].deleteTime);
    // The relation to an agent is gone; the one to an issue that does not exist yet is there (checked by form only).
    const now = await relations({ show_deleted: true, order_by: 'create_time' });
    expect(now.body.indicatorRelations.map((r) => [r.resource, r.deleteTime === undefined ? 'live' : 'deleted'])).toEqual([
      ['agents/checkout-watch', 'deleted'],
      ['issues/later', 'live'],
    ]);
    expect(now.body.indicatorRelations[0].name).toBe(relation.name);
    // The same file again changes nothing.
    expect(await apply('again.yaml', withAcmeIndicators(moved))).toBe(0);
    // Back as it was: queue-depth and the agent relation are undeleted, under the same names.
    expect(await apply('back.yaml', withAcmeIndicators(AVAILABILITY + QUEUE))).toBeGreaterThan(0);
    const back = await stack.request<{ indicator: Indicator }>('GET', '/v2/indicators-v2/queue-depth');
    expect(back.body.indicator.deleteTime).toBeUndefined();
    expect((await relations({ filter: "resource = 'agents/checkout-watch'" })).body.indicatorRelations.map((r) => r.name)).toEqual([relation.name]);
  });
});
