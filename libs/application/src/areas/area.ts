/**
 * One registration per area: its resources (domain spec and API declaration), its projections, its
 * reactors, and which projection each resource's commands wait for. The api, the projector and the
 * CLI all read the list in ./index.ts, so adding an area is one entry there (and a folder here only
 * when its projections or reactors are its own). See docs/decisions.md, "Areas" and "One reactor registry".
 */
import type { ResourceApi } from '@svc/contracts/shared/resource-api';
import { storeOf, type ResourceSpec } from '@svc/domain/shared/resource';
import type { Projection } from '@svc/infrastructure/projection/projection';
import { resourceProjection } from '@svc/infrastructure/projection/resource.projection';
import type { Reactor } from '../reactors/reactor';

/** A resource the resource kit serves: the api registers `api` for `spec` (ResourceKit.register). */
export interface AreaResource {
  /**
   * The domain spec as the kit gets it: when the resource's read model is written by a projection
   * other than its own (one combined projection), this copy names it in `projection`.
   */
  spec: ResourceSpec;
  api: ResourceApi;
  /** Checkpoint its commands wait for (read your writes): the area projection writing its read model. */
  waitsFor: string;
}

export interface Area {
  name: string;
  resources: readonly AreaResource[];
  /** Each runs with its own checkpoint in the projector; the CLI reports and rebuilds them. */
  projections: readonly Projection[];
  /** Events or time turned into commands, run by the projector's one reactor host, each under its own name. */
  reactors: readonly Reactor[];
}

/**
 * An area from its parts. Which projection a resource waits for is found, not declared: the one
 * projection of the area that writes the resource's read model (none, or two, is a wiring error).
 */
export function area(
  name: string,
  parts: { resources?: ReadonlyArray<{ spec: ResourceSpec; api: ResourceApi }>; projections: readonly Projection[]; reactors?: readonly Reactor[] },
): Area {
  const resources = (parts.resources ?? []).map(({ spec, api }) => {
    const store = storeOf(spec);
    const writers = parts.projections.filter((p) => p.collections.includes(store));
    if (writers.length !== 1) {
      throw new Error(`area ${name}: ${writers.length} projections write '${store}' (${spec.kind}); exactly one must`);
    }
    const waitsFor = writers[0].name;
    // The kit waits for `spec.projection ?? storeOf(spec)`: only a shared projection needs naming.
    const bound = waitsFor === store ? spec : { ...spec, projection: waitsFor };
    return { spec: bound, api, waitsFor };
  });
  return { name, resources, projections: parts.projections, reactors: parts.reactors ?? [] };
}

/** A plain area with reactors of its own (a folder holding them and this line). */
export function withReactors(plain: Area, ...reactors: Reactor[]): Area {
  return { ...plain, reactors: [...plain.reactors, ...reactors] };
}

/**
 * A plain area: one kit resource whose read model is its own resourceProjection. `olderApis` are
 * superseded versions of the same service (customers v1), served from the same read model.
 */
export function resourceArea(spec: ResourceSpec, api: ResourceApi, ...olderApis: ResourceApi[]): Area {
  return area(spec.collection, {
    resources: [api, ...olderApis].map((served) => ({ spec, api: served })),
    projections: [resourceProjection(spec, api)],
  });
}
