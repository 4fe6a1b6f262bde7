import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SPEC_METHODS } from '@svc/contracts/catalog';
import { BOB, CLI_MAIN, GINA, REQUEST_INFO, Stack, TEST_CONFIG, type Response } from './support/harness';

const REVISIONS = 'svc.objectives.v1.ServicesService';

interface Service {
  name: string;
  displayName: string;
  description?: string;
  state: string;
  recommendationConfidence?: string;
  etag: string;
  createTime: string;
  updateTime: string;
  deleteTime?: string;
}
interface Dimension {
  name: string;
  displayName: string;
  sourceColumn?: string;
  state: string;
  etag: string;
  deleteTime?: string;
}
interface Revision {
  name: string;
  revisionNumber: number;
  snapshot: Service;
  operation: string;
  actor: { subject: string; kind: string };
  createTime: string;
}
interface Services {
  services: Service[];
  nextPageToken: string;
}
interface Dimensions {
  serviceDimensions: Dimension[];
  nextPageToken: string;
}
interface Revisions {
  serviceRevisions: Revision[];
  nextPageToken: string;
}

function expectError(res: Response, status: number, code: string, message?: RegExp): void {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ error: { status: code, ...(message ? { message: expect.stringMatching(message) } : {}) } });
}

/** TEST_CONFIG with acme's `services:` section replaced. */
function withAcmeServices(services: string): string {
  const start = TEST_CONFIG.indexOf('    services:\n      - id: checkout');
  const end = TEST_CONFIG.indexOf('  - id: globex');
  return `${TEST_CONFIG.slice(0, start)}    services:\n${services}${TEST_CONFIG.slice(end)}`;
}

/** `npm run svc -- config apply FILE --json` against the stack's data directory. */
function configApply(stack: Stack, name: string, config: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const file = path.join(stack.dataDir, name);
  fs.writeFileSync(file, config);
  const env = { ...process.env, SVC_DATA_DIR: stack.dataDir, EVENTSTORE_URL: '', MONGODB_URL: '' };
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI_MAIN, 'config', 'apply', file, '--json'], { env }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

async function applied(stack: Stack, name: string, config: string): Promise<number> {
  const res = await configApply(stack, name, config);
  expect(res.stderr).toBe('');
  expect(res.code).toBe(0);
  const report = JSON.parse(res.stdout) as { changes: number; projected: boolean };
  expect(report.projected).toBe(true);
  return report.changes;
}

describe('service catalog (frozen): seeded from the operator configuration, read through /v1/catalog', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start();
  });
  afterAll(async () => {
    await stack.destroy();
  });

  const everything = async () => ({
    services: (await stack.request<Services>('GET', '/v1/catalog/services?showDeleted=true')).body,
    checkout: (await stack.request<Dimensions>('GET', '/v1/catalog/services/checkout/dimensions?showDeleted=true')).body,
    revisions: (await stack.request<Revisions>('GET', '/v1/services/checkout/revisions')).body,
  });

  it('ListServices returns the configured services as full resources, state defaulted to active', async () => {
    const res = await stack.request<Services>('GET', '/v1/catalog/services');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      services: [
        {
          name: 'services/checkout',
          displayName: 'Checkout',
          description: 'Takes payments for carts',
          state: 'SERVICE_STATE_ACTIVE',
          etag: expect.stringMatching(/^[\w-]{22}$/),
          createTime: expect.stringMatching(/^20\d\d-/),
          updateTime: res.body.services[0]?.createTime,
        },
        {
          name: 'services/search',
          displayName: 'Search',
          state: 'SERVICE_STATE_RECOMMENDED',
          recommendationConfidence: 'RECOMMENDATION_CONFIDENCE_HIGH',
          etag: expect.stringMatching(/^[\w-]{22}$/),
          createTime: expect.any(String),
          updateTime: expect.any(String),
        },
      ],
      nextPageToken: '',
    });
  });

  it('ListServices pages with pageSize and pageToken (either casing) until nextPageToken is empty', async () => {
    const first = await stack.request<Services>('GET', '/v1/catalog/services?pageSize=1');
    expect(first.body.services.map((s) => s.name)).toEqual(['services/checkout']);
    expect(first.body.nextPageToken).not.toBe('');
    const second = await stack.request<Services>('GET', `/v1/catalog/services?pageSize=1&pageToken=${encodeURIComponent(first.body.nextPageToken)}`);
    expect(second.body.services.map((s) => s.name)).toEqual(['services/search']);
    expect(second.body.nextPageToken).toBe('');
    const snake = await stack.request<Services>('GET', `/v1/catalog/services?page_size=1&page_token=${encodeURIComponent(first.body.nextPageToken)}`);
    expect(snake.body).toEqual(second.body);
    expectError(await stack.request('GET', '/v1/catalog/services?pageToken=garbage!!'), 400, 'INVALID_ARGUMENT', /page_token/);
  });

  it('GetService answers one service (the same resource as the list); an unknown one is NOT_FOUND', async () => {
    const listed = (await stack.request<Services>('GET', '/v1/catalog/services')).body.services[1];
    const got = await stack.request<{ service: Service }>('GET', '/v1/catalog/services/search');
    expect(got.status).toBe(200);
    expect(got.body.service).toEqual(listed);
    expectError(await stack.request('GET', '/v1/catalog/services/nope'), 404, 'NOT_FOUND', /services\/nope/);
  });

  it('ListServiceDimensions lists one service’s dimensions; GetServiceDimension reads one', async () => {
    const dims = await stack.request<Dimensions>('GET', '/v1/catalog/services/checkout/dimensions');
    expect(dims.status).toBe(200);
    expect(dims.body.serviceDimensions).toEqual([
      expect.objectContaining({ name: 'services/checkout/dimensions/plan', displayName: 'Plan', state: 'SERVICE_DIMENSION_STATE_ACTIVE' }),
      expect.objectContaining({
        name: 'services/checkout/dimensions/region',
        displayName: 'Region',
        sourceColumn: 'region',
        state: 'SERVICE_DIMENSION_STATE_ACTIVE',
        etag: expect.any(String),
      }),
    ]);
    expect(dims.body.nextPageToken).toBe('');
    const region = await stack.request<{ serviceDimension: Dimension }>('GET', '/v1/catalog/services/checkout/dimensions/region');
    expect(region.body.serviceDimension).toEqual(dims.body.serviceDimensions[1]);
    // Another service's dimensions are not these: search has none.
    expect((await stack.request<Dimensions>('GET', '/v1/catalog/services/search/dimensions')).body).toEqual({ serviceDimensions: [], nextPageToken: '' });
    expectError(await stack.request('GET', '/v1/catalog/services/nope/dimensions'), 404, 'NOT_FOUND', /service 'services\/nope' not found/);
    expectError(await stack.request('GET', '/v1/catalog/services/search/dimensions/region'), 404, 'NOT_FOUND');
  });

  it('every service starts with one CREATE revision by the operator configuration, with its snapshot', async () => {
    const service = (await stack.request<{ service: Service }>('GET', '/v1/catalog/services/checkout')).body.service;
    const rest = await stack.request<Revisions>('GET', '/v1/services/checkout/revisions');
    expect(rest.status).toBe(200);
    expect(rest.body).toEqual({
      serviceRevisions: [
        {
          name: 'services/checkout/revisions/1',
          revisionNumber: 1,
          snapshot: service,
          operation: 'REVISION_OPERATION_CREATE',
          actor: { subject: 'operator-config', kind: 'ACTOR_KIND_SYSTEM' },
          createTime: service.createTime,
        },
      ],
      nextPageToken: '',
    });
    const rpc = await stack.rpc<Revisions>(`${REVISIONS}/ListServiceRevisions`, { parent: 'services/checkout' });
    expect(rpc.body).toEqual(rest.body);
    const one = await stack.rpc<{ serviceRevision: Revision }>(`${REVISIONS}/GetServiceRevision`, { name: 'services/checkout/revisions/1' });
    expect(one.body.serviceRevision).toEqual(rest.body.serviceRevisions[0]);
    expect((await stack.request('GET', '/v1/services/checkout/revisions/1')).body).toEqual(one.body);
  });

  it('revision requests are checked: parent required and existing, names well formed', async () => {
    expectError(await stack.rpc(`${REVISIONS}/ListServiceRevisions`, {}), 400, 'INVALID_ARGUMENT', /parent/);
    expectError(await stack.rpc(`${REVISIONS}/ListServiceRevisions`, { parent: 'checkout' }), 400, 'INVALID_ARGUMENT', /parent must look like/);
    expectError(await stack.rpc(`${REVISIONS}/ListServiceRevisions`, { parent: 'services/nope' }), 404, 'NOT_FOUND');
    expectError(await stack.rpc(`${REVISIONS}/GetServiceRevision`, { name: 'services/checkout/revisions/0' }), 400, 'INVALID_ARGUMENT');
    expectError(await stack.rpc(`${REVISIONS}/GetServiceRevision`, { name: 'services/checkout/revisions/x' }), 400, 'INVALID_ARGUMENT');
    expectError(await stack.rpc(`${REVISIONS}/GetServiceRevision`, { name: 'services/checkout/revisions/9' }), 404, 'NOT_FOUND');
    expectError(await stack.rpc(`${REVISIONS}/ListServiceRevisions`, { parent: 'services/checkout', filter: 'colour = 1' }), 400, 'INVALID_ARGUMENT', /colour/);
  });

  it('every frozen write the spec lists is FAILED_PRECONDITION / FEATURE_READ_ONLY, for anyone, and changes nothing', async () => {
    const before = await everything();
    const frozen = SPEC_METHODS.filter((m) => m.area === 'catalog' && m.frozen);
    expect(frozen).toHaveLength(16); // the spec's "Frozen" table
    for (const method of frozen) {
      for (const route of method.rest ?? []) {
        const [verb, template] = route.split(' ');
        // `{name=services/*/dimensions/*}` becomes `services/checkout/dimensions/region`.
        const url = template.replace(/\{[^=}]+=([^}]+)\}/g, (_m, pattern: string) => {
          const ids = ['checkout', 'region'];
          return pattern.replace(/\*/g, () => ids.shift() ?? 'x');
        });
        const body = verb === 'DELETE' ? undefined : { display_name: 'Hijacked', service: { display_name: 'Hijacked' }, service_id: 'new' };
        for (const as of [undefined, BOB]) {
          const res = await stack.request(verb, url, { body, as });
          expectError(res, 400, 'FAILED_PRECONDITION', /read-only/);
          expect((res.body as { error: { details: unknown[] } }).error.details).toEqual([
            { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'FEATURE_READ_ONLY', domain: 'svc', metadata: {} },
            REQUEST_INFO,
          ]);
        }
      }
    }
    expect(await everything()).toEqual(before);
    expectError(await stack.request('GET', '/v1/catalog/services/new'), 404, 'NOT_FOUND');
  });

  it('tenant isolation: globex sees only billing and none of acme’s services, dimensions or revisions', async () => {
    const globex = await stack.request<Services>('GET', '/v1/catalog/services?showDeleted=true', { as: GINA });
    expect(globex.body.services.map((s) => s.name)).toEqual(['services/billing']);
    expectError(await stack.request('GET', '/v1/catalog/services/checkout', { as: GINA }), 404, 'NOT_FOUND');
    expectError(await stack.request('GET', '/v1/catalog/services/checkout/dimensions', { as: GINA }), 404, 'NOT_FOUND');
    expectError(await stack.request('GET', '/v1/catalog/services/checkout/dimensions/region', { as: GINA }), 404, 'NOT_FOUND');
    expectError(await stack.request('GET', '/v1/services/checkout/revisions', { as: GINA }), 404, 'NOT_FOUND');
    expectError(await stack.request('GET', '/v1/services/checkout/revisions/1', { as: GINA }), 404, 'NOT_FOUND');
    expectError(await stack.request('GET', '/v1/catalog/services/billing'), 404, 'NOT_FOUND');
    expect((await stack.request<Revisions>('GET', '/v1/services/billing/revisions', { as: GINA })).body.serviceRevisions).toHaveLength(1);
    // Reads need only membership: bob, with no roles, reads the catalog.
    expect((await stack.request<Services>('GET', '/v1/catalog/services', { as: BOB })).body.services).toHaveLength(2);
  });
});

describe('service catalog: changes to the configuration are events, and every one is a revision', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start();
  });
  afterAll(async () => {
    await stack.destroy();
  });

  const CHANGED = withAcmeServices(`      - id: checkout
        display_name: Checkout v2
        description: Takes payments for carts
        context: "# Checkout\\nOwns the payment flow."
        dimensions: [{id: region, display_name: Region, source_column: region_code}]
      - id: inventory
        display_name: Inventory
        state: SERVICE_STATE_ARCHIVED
        recommendation_evidence: [stock levels]
`);
  // Back to the original, except that search also comes back with another name.
  const RESTORED = withAcmeServices(`      - id: checkout
        display_name: Checkout
        description: Takes payments for carts
        state: SERVICE_STATE_ACTIVE
        dimensions: [{id: region, display_name: Region, source_column: region}, {id: plan, display_name: Plan}]
      - id: search
        display_name: Search again
        state: SERVICE_STATE_RECOMMENDED
        recommendation_confidence: RECOMMENDATION_CONFIDENCE_HIGH
`);

  const revisions = async (parent: string, extra: Record<string, unknown> = {}) => {
    const res = await stack.rpc<Revisions>(`${REVISIONS}/ListServiceRevisions`, { parent, ...extra });
    expect(res.status).toBe(200);
    return res.body.serviceRevisions;
  };
  const summary = (list: Revision[]) => list.map((r) => [r.revisionNumber, r.operation]);

  it('an applied change updates, deletes and creates services and dimensions, one revision per event', async () => {
    const before = (await stack.request<{ service: Service }>('GET', '/v1/catalog/services/checkout')).body.service;
    // checkout updated, its plan dimension deleted and region updated, search deleted, inventory created.
    expect(await applied(stack, 'changed.yaml', CHANGED)).toBe(5);

    const checkout = (await stack.request<{ service: Service & { context?: string } }>('GET', '/v1/catalog/services/checkout')).body.service;
    expect(checkout).toMatchObject({ displayName: 'Checkout v2', context: '# Checkout\nOwns the payment flow.', state: 'SERVICE_STATE_ACTIVE' });
    expect(checkout.etag).not.toBe(before.etag);
    expect(checkout.createTime).toBe(before.createTime);

    const live = await stack.request<Services>('GET', '/v1/catalog/services');
    expect(live.body.services.map((s) => [s.name, s.state])).toEqual([
      ['services/checkout', 'SERVICE_STATE_ACTIVE'],
      ['services/inventory', 'SERVICE_STATE_ARCHIVED'],
    ]);
    const all = await stack.request<Services>('GET', '/v1/catalog/services?showDeleted=true');
    expect(all.body.services.map((s) => [s.name, s.deleteTime !== undefined])).toEqual([
      ['services/checkout', false],
      ['services/inventory', false],
      ['services/search', true],
    ]);
    // A deleted service is still readable by Get (soft delete).
    expect((await stack.request<{ service: Service }>('GET', '/v1/catalog/services/search')).body.service.deleteTime).toBeDefined();

    const dims = await stack.request<Dimensions>('GET', '/v1/catalog/services/checkout/dimensions');
    expect(dims.body.serviceDimensions.map((d) => [d.name, d.sourceColumn])).toEqual([['services/checkout/dimensions/region', 'region_code']]);
    const allDims = await stack.request<Dimensions>('GET', '/v1/catalog/services/checkout/dimensions?showDeleted=true');
    expect(allDims.body.serviceDimensions.map((d) => [d.name, d.deleteTime !== undefined])).toEqual([
      ['services/checkout/dimensions/plan', true],
      ['services/checkout/dimensions/region', false],
    ]);

    const checkoutRevisions = await revisions('services/checkout');
    expect(summary(checkoutRevisions)).toEqual([
      [2, 'REVISION_OPERATION_UPDATE'],
      [1, 'REVISION_OPERATION_CREATE'],
    ]);
    // The snapshot is the service exactly as Get answered after the change.
    expect(checkoutRevisions[0].snapshot).toEqual(checkout);
    expect(checkoutRevisions[0].createTime).toBe(checkout.updateTime);
    expect(checkoutRevisions[1].snapshot).toEqual(before);

    const searchRevisions = await revisions('services/search');
    expect(summary(searchRevisions)).toEqual([
      [2, 'REVISION_OPERATION_DELETE'],
      [1, 'REVISION_OPERATION_CREATE'],
    ]);
    expect(searchRevisions[0].snapshot.deleteTime).toBe(searchRevisions[0].createTime);
    expect(summary(await revisions('services/inventory'))).toEqual([[1, 'REVISION_OPERATION_CREATE']]);
  });

  it('a service that comes back is undeleted then updated (two revisions); a repeated apply changes nothing', async () => {
    expect(await applied(stack, 'restored.yaml', RESTORED)).toBeGreaterThan(0);
    const search = (await stack.request<{ service: Service }>('GET', '/v1/catalog/services/search')).body.service;
    expect(search.deleteTime).toBeUndefined();
    expect(search.displayName).toBe('Search again');
    const searchRevisions = await revisions('services/search');
    // Undelete and update happen at the same instant: the higher revision number comes first.
    expect(summary(searchRevisions)).toEqual([
      [4, 'REVISION_OPERATION_UPDATE'],
      [3, 'REVISION_OPERATION_UNDELETE'],
      [2, 'REVISION_OPERATION_DELETE'],
      [1, 'REVISION_OPERATION_CREATE'],
    ]);
    expect(searchRevisions[1].snapshot.displayName).toBe('Search');
    expect(searchRevisions[1].snapshot).not.toHaveProperty('deleteTime');
    expect(searchRevisions[0].snapshot).toEqual(search);
    expect(summary(await revisions('services/inventory'))).toEqual([
      [2, 'REVISION_OPERATION_DELETE'],
      [1, 'REVISION_OPERATION_CREATE'],
    ]);
    const plan = await stack.request<{ serviceDimension: Dimension }>('GET', '/v1/catalog/services/checkout/dimensions/plan');
    expect(plan.body.serviceDimension.deleteTime).toBeUndefined();

    expect(await applied(stack, 'restored-again.yaml', RESTORED)).toBe(0);
    expect(await revisions('services/search')).toEqual(searchRevisions);
  });

  it('ListServiceRevisions filters over the listed fields, orders and pages', async () => {
    const names = async (extra: Record<string, unknown>) => (await revisions('services/search', extra)).map((r) => r.revisionNumber);
    expect(await names({ filter: "operation = 'REVISION_OPERATION_UPDATE'" })).toEqual([4]);
    expect(await names({ filter: 'revision_number >= 2 AND revision_number < 4' })).toEqual([3, 2]);
    expect(await names({ filter: "actor_kind = 'ACTOR_KIND_SYSTEM' AND actor_subject = 'operator-config'" })).toEqual([4, 3, 2, 1]);
    expect(await names({ filter: "actor_kind = 'ACTOR_KIND_USER'" })).toEqual([]);
    expect(await names({ filter: "name = 'services/search/revisions/2'" })).toEqual([2]);
    const first = (await revisions('services/search', { order_by: 'create_time asc' }))[0];
    expect(await names({ filter: `create_time > '${first.createTime}'` })).toEqual([4, 3, 2]);
    expect(await names({ order_by: 'name' })).toEqual([1, 2, 3, 4]);
    expect(await names({ order_by: 'revision_number desc' })).toEqual([4, 3, 2, 1]);

    const seen: number[] = [];
    let token = '';
    do {
      const page = await stack.request<Revisions>('GET', `/v1/services/search/revisions?pageSize=3&pageToken=${encodeURIComponent(token)}`);
      expect(page.body.serviceRevisions.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.serviceRevisions.map((r) => r.revisionNumber));
      token = page.body.nextPageToken;
    } while (token);
    expect(seen).toEqual([4, 3, 2, 1]);
    expectError(await stack.rpc(`${REVISIONS}/ListServiceRevisions`, { parent: 'services/search', filter: "operation = 'NOPE'" }), 400, 'INVALID_ARGUMENT');
  });

  it('an invalid catalog is refused with the offending path, and nothing is applied', async () => {
    const before = await stack.request<Services>('GET', '/v1/catalog/services?showDeleted=true');
    const cases: Array<[string, RegExp]> = [
      ['      - id: checkout\n', /services\[0\]: display_name is required/],
      [`      - id: checkout\n        display_name: "${'x'.repeat(201)}"\n`, /display_name is required and must be 1 to 200/],
      ['      - id: checkout\n        display_name: C\n        state: SERVICE_STATE_UNSPECIFIED\n', /services\[0\]: state must be one of/],
      ['      - id: checkout\n        display_name: C\n        recommendation_confidence: VERY\n', /recommendation_confidence must be one of/],
      ['      - id: -bad\n        display_name: C\n', /services\[0\]\.id must start with a letter or digit/],
      ['      - id: checkout\n        display_name: C\n        colour: red\n', /services\[0\]\.colour is not a field/],
      ['      - id: checkout\n        display_name: C\n      - id: checkout\n        display_name: D\n', /appears twice/],
      ['      - id: checkout\n        display_name: C\n        dimensions: [{id: region}]\n', /services\[0\]\.dimensions\[0\]: display_name is required/],
      ['      - id: checkout\n        display_name: C\n        dimensions: [{id: r, display_name: R, state: SERVICE_STATE_ACTIVE}]\n', /dimensions\[0\]: state must be one of SERVICE_DIMENSION_STATE_/],
    ];
    for (const [services, message] of cases) {
      const res = await configApply(stack, 'invalid.yaml', withAcmeServices(services));
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/operator configuration: organizations\[0\]\.services/);
      expect(res.stderr).toMatch(message);
    }
    expect((await stack.request<Services>('GET', '/v1/catalog/services?showDeleted=true')).body).toEqual(before.body);
  });
});
