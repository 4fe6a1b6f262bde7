import type { ChangelogApi, FilterSchema, ResourceApi } from '@svc/contracts/shared/resource-api';
import { parentName, resourceStreamId, storeOf, type ResourceEvent, type ResourceSpec } from '@svc/domain/shared/resource';
import { resourceChange } from '@svc/domain/shared/resource.decider';
import { parseOrderBy } from '../query/order-by';
import type { IndexKey, WriteOp } from '../read-store/read-store.port';
import { docId, type Projection } from './projection';

/** Paths worth indexing for a resource: everything it can be filtered or ordered by, plus soft delete. */
export function indexedPaths(filters: FilterSchema, orderBy: Record<string, string>): string[] {
  const paths = new Set<string>(['name', 'deleteTime']);
  for (const field of Object.values(filters)) if (field.type !== 'map' && field.indexed !== false) paths.add(field.path);
  for (const path of Object.values(orderBy)) paths.add(path);
  return [...paths];
}

/**
 * The order a List of the resource reads in when the caller names none (its default order, `name`
 * as the tie-breaker, as the List handler sorts), then `_id` and `deleteTime`, which the SQLite
 * store's sort and every List's soft-delete check read: the indexes continue with it.
 */
export function listOrder(api: Pick<ResourceApi, 'orderBy' | 'defaultOrder' | 'nameSortable'>): IndexKey[] {
  const keys = parseOrderBy(undefined, api.orderBy, api.defaultOrder, { nameSortable: api.nameSortable });
  return [...keys.map((k) => ({ path: k.path, direction: k.direction })), { path: '_id', direction: 1 }, { path: 'deleteTime', direction: 1 }];
}

/** Indexes of a changelog's entries: by parent first, then what its list filters and orders by. */
export function changelogIndexes(api: ChangelogApi): Record<string, string[]> {
  return { [api.store]: [api.parentPath, ...indexedPaths(api.filters, api.orderBy)] };
}

/**
 * The resource kit's projection: the read model document is the resource in its response shape,
 * updated by the very change the aggregate's fold applies (resourceChange in resource.decider.ts:
 * Created's resource, or paths to set and to remove, as `$set`/`$unset`). Snapshots serve
 * changelogs and are not read here. A nested resource's document also keeps its parent's name in
 * `_parent`, which its List is scoped by.
 */
export function resourceProjection(spec: ResourceSpec, api: ResourceApi): Projection {
  const collection = storeOf(spec);
  // Only this kind's streams: 'DeploymentEnvironmentUpdated' must not reach the deployments.
  const prefix = resourceStreamId(spec, '', '').slice(0, -1);
  return {
    name: collection,
    version: 1,
    collections: [collection],
    indexes: { [collection]: [...(spec.parent ? ['_parent'] : []), ...indexedPaths(api.filters, api.orderBy)] },
    listOrder: { [collection]: listOrder(api) },
    handle(e) {
      if (!e.record.streamId.startsWith(prefix)) return [];
      const change = resourceChange(e.event as ResourceEvent);
      if (change === null) return [];
      const update = (ops: Record<string, Record<string, unknown>>, upsert = false): WriteOp[] => [
        { op: 'update', collection, id: docId(e.org, e.resourceName), pos: e.pos, update: ops, upsert },
      ];
      if ('replace' in change) {
        const parent = spec.parent ? { _parent: parentName(e.resourceName) } : {};
        return update({ $set: { ...change.replace, _org: e.org, ...parent } }, true);
      }
      const ops: Record<string, Record<string, unknown>> = { $set: change.set };
      if (change.unset.length > 0) ops.$unset = Object.fromEntries(change.unset.map((path) => [path, '']));
      return update(ops);
    },
  };
}
