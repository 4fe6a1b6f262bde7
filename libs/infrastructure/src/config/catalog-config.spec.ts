import { serviceDimensionSpec, serviceSpec } from '@svc/domain/catalog/service.resource';
import { insertDocs, temporaryReadStore } from './testing';
import { catalogSeeds } from './catalog-seeds';
import { parseOperatorConfig } from './operator-config';

const withServices = (services: unknown) => ({ organizations: [{ id: 'acme', services }] });
const parse = (services: unknown) => parseOperatorConfig(withServices(services)).organizations[0].services;

describe('operator configuration: the service catalog', () => {
  it('stores snake_case keys lowerCamelCase and defaults the states to active', () => {
    expect(
      parse([
        {
          id: 'checkout',
          display_name: 'Checkout',
          recommendation_evidence: ['traffic'],
          dimensions: [{ id: 'region', display_name: 'Region', source_column: 'region' }],
        },
      ]),
    ).toEqual([
      {
        id: 'checkout',
        resource: { displayName: 'Checkout', recommendationEvidence: ['traffic'], state: 'SERVICE_STATE_ACTIVE' },
        dimensions: [{ id: 'region', resource: { displayName: 'Region', sourceColumn: 'region', state: 'SERVICE_DIMENSION_STATE_ACTIVE' } }],
      },
    ]);
  });

  it('names every problem with its path', () => {
    const at = 'organizations\\[0\\]\\.services';
    expect(() => parse([{ id: 'a' }])).toThrow(new RegExp(`${at}\\[0\\]: display_name is required`));
    expect(() => parse([{ id: 'a b', display_name: 'A' }])).toThrow(new RegExp(`${at}\\[0\\]\\.id must start`));
    expect(() => parse([{ display_name: 'A' }])).toThrow(/id must start .* got null/);
    expect(() => parse([{ id: 'a', display_name: 'A', state: 'ACTIVE' }])).toThrow(/state must be one of SERVICE_STATE_RECOMMENDED/);
    expect(() => parse([{ id: 'a', display_name: 'A', colour: 'red' }])).toThrow(new RegExp(`${at}\\[0\\]\\.colour is not a field`));
    expect(() => parse([{ id: 'a', display_name: 'A' }, { id: 'a', display_name: 'B' }])).toThrow(/services\[1\]\.id: service 'a' appears twice/);
    expect(() => parse([{ id: 'a', display_name: 'A', dimensions: 'region' }])).toThrow(/dimensions must be a list/);
    expect(() => parse([{ id: 'a', display_name: 'A', dimensions: [{ id: 'd', display_name: 'D' }, { id: 'd', display_name: 'E' }] }])).toThrow(
      /dimensions\[1\]\.id: dimension 'd' appears twice/,
    );
    expect(() => parse('checkout')).toThrow(/services must be a list/);
  });
});

describe('catalog seeds', () => {
  const store = temporaryReadStore('catalog-');

  it('syncs every configured service and dimension, and deletes live ones gone from the file (this organization only)', async () => {
    const reads = store.current();
    await insertDocs(reads, [
      { collection: 'services', org: 'acme', name: 'services/checkout' },
      { collection: 'services', org: 'acme', name: 'services/gone' },
      { collection: 'services', org: 'acme', name: 'services/already-deleted', deleteTime: 'T' },
      { collection: 'services', org: 'globex', name: 'services/billing' },
      { collection: 'serviceDimensions', org: 'acme', name: 'services/checkout/dimensions/plan' },
      { collection: 'serviceDimensions', org: 'acme', name: 'services/gone/dimensions/x' },
    ]);
    const org = parseOperatorConfig(withServices([{ id: 'checkout', display_name: 'C', dimensions: [{ id: 'region', display_name: 'R' }] }]))
      .organizations[0];
    const seeds = await catalogSeeds(org, reads);
    expect(seeds.map((s) => [s.spec.kind, s.parent, s.id, s.resource === null ? 'delete' : 'sync'])).toEqual([
      ['Service', undefined, 'checkout', 'sync'],
      ['ServiceDimension', 'services/checkout', 'region', 'sync'],
      ['ServiceDimension', 'services/checkout', 'plan', 'delete'],
      ['ServiceDimension', 'services/gone', 'x', 'delete'],
      ['Service', undefined, 'gone', 'delete'],
    ]);
    expect(seeds.every((s) => s.mode === 'replace')).toBe(true);
    expect(seeds[0].spec).toBe(serviceSpec);
    expect(seeds[1].spec).toBe(serviceDimensionSpec);
  });
});
