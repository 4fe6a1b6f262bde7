import type { ChangelogApi, FilterSchema, ResourceApi } from '@svc/contracts/shared/resource-api';
import { parentName, resourceStreamId, storeOf, type ResourceEvent, type ResourceSpec } from '@svc/domain/shared/resource';
import { resourceChange } from '@svc/domain/shared/resource.decider';
import { parseOrderBy } from '../query/order-by';
import type { IndexKey, ListIndexes, WriteOp } from '../read-store/read-store.port';
import { docId, type Projection } from './projection';

/** Paths worth indexing for a resource: everything it can be filtered or ordered by, plus soft delete. */
export function indexedPaths(filters: FilterSchema, orderBy: Record<string, string>): string[] {
  const paths = new Set<string>(['name', 'deleteTime']);
  for (const field of Object.values(filters)) if (field.type !== 'map' && field.indexed !== false) paths.add(field.path);
  for (const path of Object.values(orderBy)) paths.add(path);
  return [...paths];
}

/** Filter types a List compares by equality; a time or a number is a range more often than not. */
const EQUALITY_TYPES: ReadonlySet<string> = new Set(['string', 'enum', 'boolean']);

/**
 * How a resource's Lists read (ReadStore.ensureIndexes' `list`): in the order they use when the
 * caller names none (the default order, `name` as the tie-breaker, as the List handler sorts), then
 * `_id` and `deleteTime` (the SQLite store's last sort key and every List's soft-delete check);
 * filtering by equality on an indexed string, enum or boolean field (or on `scope`, a nested
 * resource's `_parent`), except the order's own fields.
 */
export function listIndexes(api: Pick<ResourceApi, 'filters' | 'orderBy' | 'defaultOrder' | 'nameSortable'>, scope: readonly string[] = []): ListIndexes {
  const keys = parseOrderBy(undefined, api.orderBy, api.defaultOrder, { nameSortable: api.nameSortable });
  const order: IndexKey[] = [...keys.map((k) => ({ path: k.path, direction: k.direction })), { path: '_id', direction: 1 }, { path: 'deleteTime', direction: 1 }];
  const inOrder = new Set(order.map((k) => k.path));
  const filtered = Object.values(api.filters).filter((f) => f.indexed !== false && EQUALITY_TYPES.has(f.type)).map((f) => f.path);
  return { order, paths: [...new Set([...scope, ...filtered])].filter((p) => !inOrder.has(p)) };
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
    listIndexes: { [collection]: listIndexes(api, spec.parent ? ['_parent'] : []) },
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
