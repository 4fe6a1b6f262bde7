import { providerSpec } from '@svc/domain/catalog/provider.resource';
import { serviceDimensionSpec, serviceSpec } from '@svc/domain/catalog/service.resource';
import { parentName, storeOf } from '@svc/domain/shared/resource';
import type { ReadStore } from '../read-store/read-store.port';
import type { OrganizationConfig } from './operator-config';
import type { Seed } from './seed';

/**
 * The catalog's seeds: each configured service, then each of its dimensions, made to match the file
 * (`replace`); services and dimensions still live in the read model but gone from the file are
 * deleted (a service that comes back is undeleted by its Sync). Providers follow the same rule.
 */
export async function catalogSeeds(org: OrganizationConfig, reads: ReadStore): Promise<Seed[]> {
  const seeds: Seed[] = [];
  const wanted = new Set<string>();
  for (const service of org.services) {
    const name = `${serviceSpec.collection}/${service.id}`;
    wanted.add(name);
    seeds.push({ spec: serviceSpec, id: service.id, resource: service.resource, mode: 'replace' });
    for (const dimension of service.dimensions) {
      wanted.add(`${name}/${serviceDimensionSpec.collection}/${dimension.id}`);
      seeds.push({ spec: serviceDimensionSpec, id: dimension.id, parent: name, resource: dimension.resource, mode: 'replace' });
    }
  }
  const live = { $and: [{ _org: org.id }, { deleteTime: { $exists: false } }] };
  // Dimensions go before their service, the reverse of creation.
  for (const doc of await reads.collection(storeOf(serviceDimensionSpec)).find(live, { sort: { name: 1 } })) {
    const name = doc.name as string;
    if (!wanted.has(name)) {
      seeds.push({ spec: serviceDimensionSpec, id: name.slice(name.lastIndexOf('/') + 1), parent: parentName(name), resource: null, mode: 'replace' });
    }
  }
  for (const doc of await reads.collection(storeOf(serviceSpec)).find(live, { sort: { name: 1 } })) {
    const name = doc.name as string;
    if (!wanted.has(name)) seeds.push({ spec: serviceSpec, id: name.slice(name.indexOf('/') + 1), resource: null, mode: 'replace' });
  }
  // Providers the same way: as the file says, and deleted once gone from it.
  for (const provider of org.providers) {
    wanted.add(`${providerSpec.collection}/${provider.id}`);
    seeds.push({ spec: providerSpec, id: provider.id, resource: provider.resource, mode: 'replace' });
  }
  for (const doc of await reads.collection(storeOf(providerSpec)).find(live, { sort: { name: 1 } })) {
    const name = doc.name as string;
    if (!wanted.has(name)) seeds.push({ spec: providerSpec, id: name.slice(name.indexOf('/') + 1), resource: null, mode: 'replace' });
  }
  return seeds;
}
