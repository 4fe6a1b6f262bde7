import { insertDocs, temporaryReadStore } from './testing';
import { relationV2Id } from './indicators-v2-config';
import { indicatorsV2Seeds } from './indicators-v2-seeds';
import { parseOperatorConfig } from './operator-config';

const SQL = 'SELECT TIMESTAMP_BUCKET(ts, @resolution) AS time, COUNTIF(ok) AS good_events, COUNT(*) AS total_events FROM requests WHERE ts >= @start_time AND ts < @end_time GROUP BY time';
const telemetry = { id: 'telemetry', type: 'CONNECTION_TYPE_SQLDB', details: { sqldb: { host: 'h', schema: { requests: { ts: 'TIMESTAMP', ok: 'BOOL' } } } } };
const entry = (extra: Record<string, unknown> = {}) => ({
  id: 'availability',
  display_name: 'Availability',
  kind: 'INDICATOR_KIND_RATIO',
  unit: '%',
  query: { connections: ['connections/telemetry'], engine_sql: SQL },
  resources: ['agents/checkout-watch'],
  ...extra,
});
const config = (indicators: unknown, connections: unknown[] = [telemetry]) => ({
  organizations: [{ id: 'acme', connections, indicators_v2: indicators }, { id: 'globex', connections: [{ ...telemetry, id: 'ledger' }] }],
});
const parse = (indicators: unknown, connections?: unknown[]) => parseOperatorConfig(config(indicators, connections)).organizations[0].indicatorsV2;

describe('operator configuration: v2 indicators', () => {
  it('stores keys lowerCamelCase and derives a relation ID per (indicator, resource)', () => {
    expect(parse([entry({ description: 'Good requests', query: { connections: ['connections/telemetry'], engine_sql: SQL, description: 'from requests' } })])).toEqual([
      {
        id: 'availability',
        resource: {
          displayName: 'Availability',
          description: 'Good requests',
          kind: 'INDICATOR_KIND_RATIO',
          unit: '%',
          query: { connections: ['connections/telemetry'], engineSql: SQL, description: 'from requests' },
        },
        relations: [{ id: relationV2Id('availability', 'agents/checkout-watch'), resource: 'agents/checkout-watch' }],
      },
    ]);
    expect(relationV2Id('availability', 'agents/checkout-watch')).toMatch(/^v2-availability-[0-9a-f]{12}$/);
    expect(relationV2Id('availability', 'agents/other')).not.toBe(relationV2Id('availability', 'agents/checkout-watch'));
    expect(parseOperatorConfig(config(undefined)).organizations[0].indicatorsV2).toEqual([]);
  });

  it('judges each entry by the shared indicator rule and names the entry in every message', () => {
    const at = "organizations\\[0\\]\\.indicators_v2\\[0\\]";
    expect(() => parse([entry({ unit: undefined })])).toThrow(new RegExp(`${at}: indicator 'availability': indicator.unit is required`));
    expect(() => parse([entry({ query: { connections: ['connections/telemetry'], engine_sql: SQL.replace('@resolution', 'INTERVAL 1 MINUTE') } })])).toThrow(
      new RegExp(`${at}: indicator 'availability': .*must reference @resolution`),
    );
    expect(() => parse([entry({ query: { connections: ['connections/ledger'], engine_sql: SQL } })])).toThrow(
      new RegExp(`${at}\\.query\\.connections: indicator 'availability': connection 'connections/ledger' is not configured in this organization`),
    );
    expect(() => parse([entry({ kind: 'INDICATOR_KIND_GAUGE' })])).toThrow(/needs exactly time, value/);
    // A declared schema is an optional override (issue 20): a connection without one is accepted.
    expect(parse([entry()], [{ ...telemetry, details: { sqldb: { host: 'h' } } }])).toHaveLength(1);
    expect(() => parse([entry({ id: 'Not_Kebab' })])).toThrow(new RegExp(`${at}\\.id indicator_id must be kebab-case`));
    expect(() => parse([entry({ colour: 'red' })])).toThrow(new RegExp(`${at}\\.colour is not a field a v2 indicator takes`));
  });

  it('refuses repeated IDs, a resource listed twice, and resource names of the wrong form', () => {
    expect(() => parse([entry(), entry()])).toThrow(/indicators_v2\[1\]\.id: indicator 'availability': appears twice/);
    expect(() => parse([entry({ resources: ['agents/a', 'agents/a'] })])).toThrow(/indicators_v2\[0\]\.resources\[1\]: indicator 'availability': resource 'agents\/a' is listed twice/);
    expect(() => parse([entry({ resources: ['notes/a'] })])).toThrow(/resources\[0\]: indicator 'availability': indicator_relation\.resource must name an agent/);
  });
});

describe('v2 indicator seeds', () => {
  const store = temporaryReadStore('indicators-v2-');
  const NOW = () => '2024-06-01T00:00:00.000Z';

  it('syncs indicators and relations, deletes live ones gone from the file (relations first), and keeps the status of an unchanged query', async () => {
    const org = parseOperatorConfig(config([entry()])).organizations[0];
    const kept = { connections: ['connections/telemetry'], engineSql: SQL, status: { validateTime: '2024-01-01T00:00:00.000Z' } };
    const reads = store.current();
    await insertDocs(reads, [
      { collection: 'indicators-v2', org: 'acme', name: 'indicators-v2/availability', kind: 'INDICATOR_KIND_RATIO', query: kept },
      { collection: 'indicators-v2', org: 'acme', name: 'indicators-v2/gone' },
      { collection: 'indicators-v2', org: 'globex', name: 'indicators-v2/theirs' },
      { collection: 'indicator-relations-v2', org: 'acme', name: 'indicatorRelations/v2-gone-1' },
    ]);
    const seeds = await indicatorsV2Seeds(org, reads, NOW);
    expect(seeds.map((s) => [s.spec.kind, s.id, s.resource === null ? 'delete' : 'sync'])).toEqual([
      ['IndicatorV2', 'availability', 'sync'],
      ['IndicatorRelationV2', relationV2Id('availability', 'agents/checkout-watch'), 'sync'],
      ['IndicatorRelationV2', 'v2-gone-1', 'delete'],
      ['IndicatorV2', 'gone', 'delete'],
    ]);
    expect(seeds.every((s) => s.mode === 'replace')).toBe(true);
    expect(seeds[0].resource).toMatchObject({ query: kept });
    expect(seeds[1].resource).toEqual({ indicator: 'indicators-v2/availability', resource: 'agents/checkout-watch' });

    // A changed query is judged anew: a fresh validate_time.
    const changed = parseOperatorConfig(config([entry({ kind: 'INDICATOR_KIND_RATIO', query: { connections: ['connections/telemetry'], engine_sql: `${SQL} ` } })])).organizations[0];
    expect((await indicatorsV2Seeds(changed, reads, NOW))[0].resource).toMatchObject({ query: { status: { validateTime: NOW() } } });
  });
});
