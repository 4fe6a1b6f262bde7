import type { Projection } from './projection';

/**
 * One projection (one checkpoint) out of several handlers, for read models that must move together:
 * a deployment, its status-event changelog and its environment are committed in the same batch, so a
 * write that waits for this projection can read all three. Each event goes to every part, in order.
 */
export function combineProjections(name: string, version: number, parts: readonly Projection[]): Projection {
  const indexes: Record<string, string[]> = {};
  for (const part of parts) {
    for (const [collection, paths] of Object.entries(part.indexes)) {
      indexes[collection] = [...new Set([...(indexes[collection] ?? []), ...paths])];
    }
  }
  // Each collection has one writer part, whose List indexes it keeps.
  const listIndexes = Object.assign({}, ...parts.map((part) => part.listIndexes ?? {})) as NonNullable<Projection['listIndexes']>;
  const crossOrgIndexes = Object.assign({}, ...parts.map((part) => part.crossOrgIndexes ?? {})) as NonNullable<Projection['crossOrgIndexes']>;
  return {
    name,
    version,
    collections: [...new Set(parts.flatMap((part) => part.collections))],
    indexes,
    listIndexes,
    crossOrgIndexes,
    handle: (event) => parts.flatMap((part) => part.handle(event)),
  };
}
