/**
 * The `services:` section of the operator configuration (spec/operator-config.md): the frozen
 * service catalog. Keys are snake_case in the file and lowerCamelCase once stored; every entry is
 * judged by the catalog's domain rules here, so a bad catalog fails before anything is applied.
 */
import { z } from 'zod';
import { PROVIDER_FIELDS, validateProvider } from '@svc/domain/catalog/provider.resource';
import {
  CATALOG_ID_PATTERN,
  SERVICE_DIMENSION_FIELDS,
  SERVICE_FIELDS,
  validateService,
  validateServiceDimension,
} from '@svc/domain/catalog/service.resource';
import type { JsonObject } from '@svc/domain/shared/json-path';
import { camelToSnake, snakeToCamel } from '../wire';
import { addIssue, judgeEntry, mapping } from './config-schema';

export interface ProviderConfig {
  id: string;
  /** The provider as it should be (lowerCamelCase, `kind` and `services` defaulted). */
  resource: JsonObject;
}

export interface ServiceConfig {
  id: string;
  /** The service as it should be (lowerCamelCase, `state` defaulted). */
  resource: JsonObject;
  dimensions: Array<{ id: string; resource: JsonObject }>;
}

const idRule = (issue: { input?: unknown }) =>
  `must start with a letter or digit and contain only letters, digits, hyphens and underscores (at most 128 characters), got ${JSON.stringify(issue.input ?? null)}`;
const catalogId = () => z.string({ error: idRule }).regex(CATALOG_ID_PATTERN, { error: idRule });

/** The resource fields as file keys; their values are the domain's to judge (one rule, one place). */
function resourceFields(fields: readonly string[], rules = 'libs/domain/src/catalog/service.resource.ts'): Record<string, z.ZodType> {
  const judged = z.unknown().meta({ description: `judged by the catalog rules (${rules})` });
  return Object.fromEntries(fields.map((field) => [camelToSnake(field), judged.optional()]));
}

/** The keys given, lowerCamelCase, with the state defaulted; null is the same as leaving a key out. */
function toResource(fields: Record<string, unknown>, state: string): JsonObject {
  const resource: JsonObject = { state };
  for (const [key, value] of Object.entries(fields)) {
    if (value !== null && value !== undefined) resource[snakeToCamel(key)] = value as JsonObject[string];
  }
  return resource;
}

const judge = (ctx: z.RefinementCtx, rule: () => void): void => judgeEntry((message) => addIssue(ctx, message, [], true), rule);

const CATALOG_FIELD = 'is not a field the catalog takes';

const dimensionEntry = mapping({ id: catalogId(), ...resourceFields(SERVICE_DIMENSION_FIELDS) }, CATALOG_FIELD).transform((entry, ctx) => {
  const { id, ...fields } = entry as { id: string } & Record<string, unknown>;
  const resource = toResource(fields, 'SERVICE_DIMENSION_STATE_ACTIVE');
  judge(ctx, () => validateServiceDimension(resource));
  return { id, resource };
});

const serviceEntry = mapping(
  { id: catalogId(), ...resourceFields(SERVICE_FIELDS), dimensions: z.array(dimensionEntry, { error: 'must be a list' }).nullish() },
  CATALOG_FIELD,
).transform((entry, ctx): ServiceConfig => {
  const { id, dimensions, ...fields } = entry as { id: string; dimensions?: ServiceConfig['dimensions'] | null } & Record<string, unknown>;
  const resource = toResource(fields, 'SERVICE_STATE_ACTIVE');
  judge(ctx, () => validateService(resource));
  const seen = new Set<string>();
  (dimensions ?? []).forEach((dimension, j) => {
    if (seen.has(dimension.id)) addIssue(ctx, `dimension '${dimension.id}' appears twice in service '${id}'`, ['dimensions', j, 'id'], true);
    seen.add(dimension.id);
  });
  return { id, resource, dimensions: dimensions ?? [] };
});

/** A list of catalog entries, each judged by its entry schema, IDs unique (`{noun} 'x' appears twice`). */
const uniqueIdList = <T extends { id: string }>(entry: z.ZodType<T>, noun: string) =>
  z
    .array(entry, { error: 'must be a list' })
    .superRefine((entries, ctx) => {
      const seen = new Set<string>();
      entries.forEach((e, i) => {
        if (seen.has(e.id)) addIssue(ctx, `${noun} '${e.id}' appears twice`, [i, 'id'], true);
        seen.add(e.id);
      });
    })
    .nullish();

/** The `services:` list of an organization: each entry by the catalog's rules, IDs unique. */
export const serviceList = () => uniqueIdList(serviceEntry, 'service');

const providerEntry = mapping({ id: catalogId(), ...resourceFields(PROVIDER_FIELDS, 'libs/domain/src/catalog/provider.resource.ts') }, CATALOG_FIELD).transform((entry, ctx): ProviderConfig => {
  const { id, ...fields } = entry as { id: string } & Record<string, unknown>;
  const { state: _none, ...given } = toResource(fields, '');
  const resource: JsonObject = { kind: 'PROVIDER_KIND_UNSPECIFIED', services: [], ...given };
  judge(ctx, () => validateProvider(resource));
  return { id, resource };
});

/** The `providers:` list of an organization (the catalog's providers), IDs unique. */
export const providerList = () => uniqueIdList(providerEntry, 'provider');
