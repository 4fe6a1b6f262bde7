/**
 * How read-model documents and aggregate states become answers: internal fields stripped, an etag
 * where the resource has one, the list form's subset of fields, and the noun messages use.
 */
import type { ResourceApi } from '@svc/contracts/shared/resource-api';
import type { Doc } from '@svc/infrastructure/read-store/read-store.port';
import { withEtag } from '@svc/infrastructure/wire/etag';

/** Strips internal fields (`_id`, `_org`, `_pos`, ...) so a document is exactly the response shape. */
export function toResponse(doc: Doc): Doc {
  const out: Doc = {};
  for (const [k, v] of Object.entries(doc)) if (!k.startsWith('_')) out[k] = v;
  return out;
}

/** Responses of a resource with an etag carry it, computed from the whole content (writes included). */
export function presenter(api: Pick<ResourceApi, 'etag'>): <T extends Record<string, unknown>>(resource: T) => T {
  return (resource) => (api.etag ? withEtag(resource) : resource);
}

/** The given fields of a resource that it has (a list form, a connection without its timestamps). */
export function pick(resource: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(fields.filter((f) => resource[f] !== undefined).map((f) => [f, resource[f]]));
}

/** `known issue`, for messages. */
export function nounOf(api: Pick<ResourceApi, 'singular'>): string {
  return api.singular.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
}
