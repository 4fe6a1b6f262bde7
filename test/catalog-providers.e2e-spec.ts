/**
 * ListProviders (`GET /v1/catalog/providers`, spec part 3: providers are exported like services;
 * fields ours, docs/decisions.md "Catalog providers"): seeded from the operator configuration,
 * synced to match it on every apply, read-only through the API.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BOB, eventually, GINA, Stack, TEST_CONFIG } from './support/harness';

interface Provider {
  name: string;
  displayName: string;
  description?: string;
  kind: string;
  services: string[];
  etag: string;
}
interface Providers {
  providers: Provider[];
  nextPageToken: string;
}

const PROVIDERS = `    providers:
      - id: aws-eu
        display_name: AWS eu-west-1
        kind: PROVIDER_KIND_CLOUD
        services: [services/checkout, services/search]
      - id: stripe
        display_name: Stripe
        description: Card payments
        kind: PROVIDER_KIND_SAAS
        services: [services/checkout]
      - id: ledger
        display_name: Ledger team
`;
const withProviders = (providers: string) => TEST_CONFIG.replace('    services:\n      - id: checkout', `${providers}    services:\n      - id: checkout`);

describe('catalog providers (ListProviders)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start({ config: withProviders(PROVIDERS) });
  });
  afterAll(async () => {
    await stack?.destroy();
  });

  it('lists the configured providers by name, to any member, with the defaults filled', async () => {
    const res = await stack.request<Providers>('GET', '/v1/catalog/providers', { as: BOB });
    expect(res.status).toBe(200);
    expect(res.body.providers.map((p) => p.name)).toEqual(['providers/aws-eu', 'providers/ledger', 'providers/stripe']);
    expect(res.body.providers[1]).toMatchObject({ displayName: 'Ledger team', kind: 'PROVIDER_KIND_UNSPECIFIED', services: [] });
    expect(res.body.providers[2]).toMatchObject({ description: 'Card payments', kind: 'PROVIDER_KIND_SAAS', services: ['services/checkout'], etag: expect.any(String) });
  });

  it('filters and pages like every list', async () => {
    const saas = await stack.request<Providers>('GET', `/v1/catalog/providers?filter=${encodeURIComponent('kind = PROVIDER_KIND_SAAS')}`);
    expect(saas.body.providers.map((p) => p.name)).toEqual(['providers/stripe']);
    const uses = await stack.request<Providers>('GET', `/v1/catalog/providers?filter=${encodeURIComponent('services:"services/search"')}`);
    expect(uses.body.providers.map((p) => p.name)).toEqual(['providers/aws-eu']);
    const first = await stack.request<Providers>('GET', '/v1/catalog/providers?pageSize=2');
    const second = await stack.request<Providers>('GET', `/v1/catalog/providers?pageSize=2&pageToken=${first.body.nextPageToken}`);
    expect([...first.body.providers, ...second.body.providers].map((p) => p.name)).toEqual(['providers/aws-eu', 'providers/ledger', 'providers/stripe']);
  });

  it('keeps tenants apart', async () => {
    expect((await stack.request<Providers>('GET', '/v1/catalog/providers', { as: GINA })).body.providers).toEqual([]);
  });

  it('re-applying a changed file updates, adds and deletes providers to match it', async () => {
    const file = path.join(stack.dataDir, 'changed.yaml');
    fs.writeFileSync(file, withProviders(`    providers:\n      - id: stripe\n        display_name: Stripe Payments\n        kind: PROVIDER_KIND_SAAS\n      - id: gcp\n        display_name: GCP\n        kind: PROVIDER_KIND_CLOUD\n`));
    const applied = await stack.cli('config', 'apply', file);
    expect(applied.code).toBe(0);
    const names = async () => (await stack.request<Providers>('GET', '/v1/catalog/providers')).body.providers.map((p) => `${p.name}=${p.displayName}`);
    const expected = ['providers/gcp=GCP', 'providers/stripe=Stripe Payments'];
    // The CLI appends; the api's read model catches up through the projector.
    expect(await eventually(async () => ((await names()).join() === expected.join() ? expected : undefined))).toEqual(expected);
    const deleted = await stack.request<Providers>('GET', '/v1/catalog/providers?showDeleted=true');
    expect(deleted.body.providers.map((p) => p.name)).toEqual(['providers/aws-eu', 'providers/gcp', 'providers/ledger', 'providers/stripe']);
  });

  it('refuses a bad provider in the file, naming it, before anything is applied', async () => {
    const file = path.join(stack.dataDir, 'bad.yaml');
    fs.writeFileSync(file, withProviders(`    providers:\n      - id: x\n        display_name: X\n        kind: PROVIDER_KIND_MOON\n`));
    const applied = await stack.cli('config', 'apply', file);
    expect(applied.code).not.toBe(0);
    expect(applied.stderr).toMatch(/providers\[0\].*kind must be one of/);
  });
});
