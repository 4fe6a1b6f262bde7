/**
 * The `services:` section of the operator configuration (spec/operator-config.md): the frozen
 * service catalog. Keys are snake_case in the file and lowerCamelCase once stored; every entry is
 * judged by the catalog's domain rules here, so a bad catalog fails before anything is applied.
 */
import {
  CATALOG_ID_PATTERN,
  SERVICE_DIMENSION_FIELDS,
  SERVICE_FIELDS,
  serviceDimensionSpec,
  serviceSpec,
  validateService,
  validateServiceDimension,
} from '@svc/domain/catalog/service.resource';
import { DomainError } from '@svc/domain/shared/domain-error';
import type { JsonObject } from '@svc/domain/shared/json-path';
import { parentName, storeOf } from '@svc/domain/shared/resource';
import type { ReadStore } from '../read-store/read-store.port';
import { camelToSnake, snakeToCamel } from '../wire';
import { ConfigError } from './config-error';
import type { OrganizationConfig } from './operator-config';
import type { Seed } from './seeds';

export interface ServiceConfig {
  id: string;
  /** The service as it should be (lowerCamelCase, `state` defaulted). */
  resource: JsonObject;
  dimensions: Array<{ id: string; resource: JsonObject }>;
}

export function parseServices(entries: unknown[], at: string): ServiceConfig[] {
  const ids = new Set<string>();
  return entries.map((entry, i) => {
    const where = `${at}[${i}]`;
    const { id, fields, dimensions } = split(entry, where, SERVICE_FIELDS, ['dimensions']);
    if (ids.has(id)) throw new ConfigError(`${where}.id: service '${id}' appears twice`);
    ids.add(id);
    const resource = { state: 'SERVICE_STATE_ACTIVE', ...fields };
    judge(() => validateService(resource), where);
    if (dimensions !== undefined && !Array.isArray(dimensions)) throw new ConfigError(`${where}.dimensions must be a list`);
    const dimensionIds = new Set<string>();
    return {
      id,
      resource,
      dimensions: (dimensions ?? []).map((d, j) => {
        const dwhere = `${where}.dimensions[${j}]`;
        const dimension = split(d, dwhere, SERVICE_DIMENSION_FIELDS, []);
        if (dimensionIds.has(dimension.id)) throw new ConfigError(`${dwhere}.id: dimension '${dimension.id}' appears twice in service '${id}'`);
        dimensionIds.add(dimension.id);
        const dresource = { state: 'SERVICE_DIMENSION_STATE_ACTIVE', ...dimension.fields };
        judge(() => validateServiceDimension(dresource), dwhere);
        return { id: dimension.id, resource: dresource };
      }),
    };
  });
}

/**
 * The catalog's seeds: each configured service, then each of its dimensions, made to match the file
 * (`replace`); services and dimensions still live in the read model but gone from the file are
 * deleted (a service that comes back is undeleted by its Sync).
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
  return seeds;
}

/** The entry's id, its resource fields (camelCase) and the extra keys; unknown keys are errors (typos). */
function split(entry: unknown, where: string, fields: readonly string[], extra: readonly string[]) {
  if (!entry || typeof entry !== 'object' || Array.isArray(entry)) throw new ConfigError(`${where} must be a mapping`);
  const out: JsonObject = {};
  let id: unknown;
  let dimensions: unknown[] | undefined;
  for (const [key, value] of Object.entries(entry as Record<string, unknown>)) {
    const field = snakeToCamel(key);
    if (field === 'id') id = value;
    else if (extra.includes(field)) dimensions = value as unknown[];
    else if (fields.includes(field)) {
      if (value !== null && value !== undefined) out[field] = value;
    } else {
      const known = ['id', ...fields, ...extra].map(camelToSnake).join(', ');
      throw new ConfigError(`${where}.${key} is not a field the catalog takes (known: ${known})`);
    }
  }
  if (typeof id !== 'string' || !CATALOG_ID_PATTERN.test(id)) {
    throw new ConfigError(
      `${where}.id must start with a letter or digit and contain only letters, digits, hyphens and underscores (at most 128 characters), got ${JSON.stringify(id ?? null)}`,
    );
  }
  return { id, fields: out, dimensions };
}

function judge(rule: () => void, where: string): void {
  try {
    rule();
  } catch (error) {
    if (error instanceof DomainError) throw new ConfigError(`${where}: ${error.message}`);
    throw error;
  }
}
