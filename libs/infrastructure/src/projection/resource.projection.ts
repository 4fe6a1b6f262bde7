import type { ChangelogApi, FilterSchema, ResourceApi } from '@svc/contracts/shared/resource-api';
import { parentName, resourceStreamId, storeOf, type PatchData, type ResourceSpec } from '@svc/domain/shared/resource';
import type { WriteOp } from '../read-store/read-store.port';
import { docId, type Projection, type ProjectedEvent } from './projection';

/** Paths worth indexing for a resource: everything it can be filtered or ordered by, plus soft delete. */
export function indexedPaths(filters: FilterSchema, orderBy: Record<string, string>): string[] {
  const paths = new Set<string>(['name', 'deleteTime']);
  for (const field of Object.values(filters)) if (field.type !== 'map' && field.indexed !== false) paths.add(field.path);
  for (const path of Object.values(orderBy)) paths.add(path);
  return [...paths];
}

/** Indexes of a changelog's entries: by parent first, then what its list filters and orders by. */
export function changelogIndexes(api: ChangelogApi): Record<string, string[]> {
  return { [api.store]: [api.parentPath, ...indexedPaths(api.filters, api.orderBy)] };
}

/**
 * The resource kit's projection: the read model document is the resource in its response shape,
 * folded from the same events the aggregate folds (Created, patches from Updated and area actions,
 * Deleted, Undeleted; snapshots serve changelogs and are not read here). A nested resource's
 * document also keeps its parent's name in `_parent`, which its List is scoped by.
 */
export function resourceProjection(spec: ResourceSpec, api: ResourceApi): Projection {
  const collection = storeOf(spec);
  // Only this kind's streams: 'DeploymentEnvironmentUpdated' must not reach the deployments.
  const prefix = resourceStreamId(spec, '', '').slice(0, -1);
  const update = (e: ProjectedEvent, ops: Record<string, Record<string, unknown>>, upsert = false): WriteOp[] => [
    { op: 'update', collection, id: docId(e.org, e.resourceName), pos: e.pos, update: ops, upsert },
  ];
  return {
    name: collection,
    version: 1,
    collections: [collection],
    indexes: { [collection]: [...(spec.parent ? ['_parent'] : []), ...indexedPaths(api.filters, api.orderBy)] },
    handle(e) {
      if (!e.record.streamId.startsWith(prefix)) return [];
      const data = e.event.data;
      if (data.set !== null && typeof data.set === 'object') {
        // `${kind}Updated` or an area action's event: both carry the patch they apply.
        const patch = data as unknown as PatchData;
        const ops: Record<string, Record<string, unknown>> = { $set: { ...patch.set, updateTime: patch.updateTime } };
        if (patch.unset.length > 0) ops.$unset = Object.fromEntries(patch.unset.map((path) => [path, '']));
        return update(e, ops);
      }
      switch (e.event.type) {
        case `${spec.kind}Created`: {
          const parent = spec.parent ? { _parent: parentName(e.resourceName) } : {};
          return update(e, { $set: { ...(data.resource as Record<string, unknown>), _org: e.org, ...parent } }, true);
        }
        case `${spec.kind}Deleted`:
          return update(e, { $set: { deleteTime: data.deleteTime } });
        case `${spec.kind}Undeleted`:
          return update(e, { $unset: { deleteTime: '' }, $set: { updateTime: data.updateTime } });
        default:
          return [];
      }
    },
  };
}
