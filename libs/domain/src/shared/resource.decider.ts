/**
 * The generic decider behind the resource kit: Create / Update (field mask) / Delete / Undelete for any
 * area described by a ResourceSpec. One stream per resource, so the state is that one resource.
 */
import type { Decider } from './decider';
import { DomainError, alreadyExists, failedPrecondition, invalid, notFound } from './domain-error';
import {
  deepEqual,
  getPath,
  isPlainObject,
  isPresent,
  isValidPath,
  setPath,
  unsetPath,
  type JsonObject,
} from './json-path';
import {
  kindLabel,
  wireField,
  type Claimed,
  resourceName,
  type PatchData,
  type References,
  type Resource,
  type ResourceCommand,
  type ResourceEvent,
  type ResourceSpec,
  type ResourceState,
  type UpdateScope,
} from './resource';

type Created = { type: string; data: { resource: Resource } };
type Patch = { type: string; data: PatchData };
type Deleted = { type: string; data: { deleteTime: string } };
type Undeleted = { type: string; data: { updateTime: string } };

// Event types are `${kind}<Suffix>`; recognised by suffix, and patch events (`${kind}Updated` and
// area actions such as `DeploymentStatusChanged`) by their `set`.
// ('NoteUndeleted' does not end with 'Deleted': the suffix match is case-sensitive.)
const isCreated = (event: ResourceEvent): event is Created => event.type.endsWith('Created');
const isPatch = (event: ResourceEvent): event is Patch => isPlainObject((event.data as Partial<PatchData>).set);
const isDeleted = (event: ResourceEvent): event is Deleted => event.type.endsWith('Deleted');
const isUndeleted = (event: ResourceEvent): event is Undeleted => event.type.endsWith('Undeleted');
const RESERVED_SUFFIX = /(Created|Deleted|Undeleted)$/;

/**
 * What one resource event does to the resource: a whole new resource (Created), or dotted paths to
 * set and then paths to remove (`$set`/`$unset` semantics). The fold below applies it, and the
 * read-model projection (resource.projection.ts) turns the same change into its update, so the
 * stored document cannot differ from the aggregate state. Null: not a resource event.
 */
export type ResourceChange = { replace: Resource } | { set: Record<string, unknown>; unset: readonly string[] };

export function resourceChange(event: ResourceEvent): ResourceChange | null {
  if (isCreated(event)) return { replace: event.data.resource };
  if (isPatch(event)) return { set: { ...event.data.set, updateTime: event.data.updateTime }, unset: event.data.unset };
  if (isUndeleted(event)) return { set: { updateTime: event.data.updateTime }, unset: ['deleteTime'] };
  if (isDeleted(event)) return { set: { deleteTime: event.data.deleteTime }, unset: [] };
  return null;
}

/** Folds one resource event onto a resource (the aggregate's evolve), by its ResourceChange. */
export function applyResourceEvent(resource: Resource | null, event: ResourceEvent): Resource | null {
  const change = resourceChange(event);
  if (change === null) throw new Error(`unknown resource event type ${event.type}`);
  if ('replace' in change) return change.replace;
  // A corrupt stream is a bug, not a user error: throwing lets the projector park the event.
  if (resource === null) throw new Error(`${event.type} applied to a resource that was never created`);
  let next = resource;
  for (const [path, value] of Object.entries(change.set)) next = setPath(next, path, value);
  for (const path of change.unset) next = unsetPath(next, path);
  return next;
}

export function resourceDecider(spec: ResourceSpec): Decider<ResourceState, ResourceCommand, ResourceEvent> {
  const label = kindLabel(spec.kind);
  if (spec.unique?.length && (spec.undeletable || spec.implicit)) {
    // An undelete would have to claim again; an implicit resource's first write carries no claim for its document.
    throw new Error(`${spec.kind}: unique fields do not combine with ${spec.undeletable ? 'undelete' : 'implicit'}`);
  }
  const mutable = spec.settable.filter((field) => !(spec.immutable ?? []).includes(field));

  const live = (state: ResourceState, name: string): Resource => {
    // AIP-135: a soft-deleted resource cannot be updated or deleted again; it reads as not found.
    if (state.resource === null || state.deleted) throw notFound(`${label} '${name}' not found`);
    return writable(state.resource);
  };
  const writable = (resource: Resource): Resource => {
    const why = spec.readOnly?.(resource);
    if (why) throw failedPrecondition(why);
    return resource;
  };

  /** Every name newly referenced must exist and be live; unchanged references are not re-judged. */
  const checkReferences = (resource: Resource, previous: Resource | undefined, refs: References = new Map()) => {
    if (!spec.references) return;
    const before = new Set(previous ? spec.references(previous) : []);
    for (const name of spec.references(resource)) {
      if (before.has(name)) continue;
      const target = refs.get(name);
      if (!target || target.deleteTime !== undefined) throw invalid(`${label} '${resource.name}' refers to '${name}', which does not exist`);
    }
  };

  const updated = (set: JsonObject, unset: string[], updateTime: string): ResourceEvent => ({
    type: `${spec.kind}Updated`,
    data: { set: { ...set }, unset: [...unset], updateTime },
  });

  /** A new resource with its derived fields (an undefined one left out). */
  const withDerived = (resource: Resource): Resource => {
    const out: Resource = { ...resource };
    for (const [field, value] of Object.entries(spec.derive?.(resource) ?? {})) {
      if (value === undefined) delete out[field];
      else out[field] = value;
    }
    return out;
  };

  /** Derived fields of the resource about to be stored, added to the patch when they change. */
  const derivePatch = (merged: Resource, set: JsonObject, unset: string[]) => {
    for (const [field, value] of Object.entries(spec.derive?.(merged) ?? {})) {
      if (deepEqual(value, merged[field])) continue;
      if (value === undefined) unset.push(field);
      else {
        set[field] = value;
        // A derived value replaces a clear of the same field (an SLO's direction falls back to its default).
        if (unset.includes(field)) unset.splice(unset.indexOf(field), 1);
      }
    }
  };

  /**
   * A unique value may only be newly set under a claim the API made for this very command; without
   * one, the value changed between the API's check and this decision (a narrow race): try again.
   */
  const checkClaims = (resource: Resource, previous: Resource | undefined, claimed: Claimed = {}) => {
    if (claimed === 'pending') return;
    for (const field of spec.unique ?? []) {
      const value = resource[field];
      if (value === undefined || deepEqual(value, previous?.[field]) || claimed[field] === value) continue;
      throw new DomainError('ABORTED', `${label} '${resource.name}' changed concurrently while its ${wireField(field)} was being claimed; try again`);
    }
  };

  /** Put and Sync carry no claims: a kind with unique fields would set values nobody guards. */
  const unclaimed = (type: string) => {
    if (spec.unique?.length) throw new Error(`${spec.kind}: ${type} does not claim unique fields; use Create and Update`);
  };

  function create(command: Extract<ResourceCommand, { type: 'Create' }>, state: ResourceState): ResourceEvent[] {
    const { actor, id } = command;
    const name = resourceName(spec, id, command.parent);
    // A malformed ID is refused whatever the stream holds (a seeded `svc:` tag must not answer ALREADY_EXISTS).
    if (!spec.idPattern.test(id)) throw invalid(`${spec.idRule} (got '${id}')`);
    // The stream outlives a soft delete, so a deleted resource still holds its name.
    if (state.resource !== null) throw alreadyExists(`${label} '${name}' already exists`);
    const provided: JsonObject = {};
    for (const field of spec.settable) {
      // Unknown and output-only fields are dropped silently (wire convention 5).
      if (Object.hasOwn(command.resource, field) && isPresent(command.resource[field])) {
        provided[field] = command.resource[field];
      }
    }
    let resource: Resource = { ...spec.defaults, ...provided, name, createTime: actor.now, updateTime: actor.now };
    if (spec.onCreate) resource = spec.onCreate(resource, actor);
    resource = withDerived(resource);
    const refs = command.refs ?? new Map();
    checkReferences(resource, undefined, refs);
    spec.validate?.(resource, { actor, refs, facts: command.facts });
    checkClaims(resource, undefined, command.claimed);
    return [{ type: `${spec.kind}Created`, data: { resource } }];
  }

  function update(command: Extract<ResourceCommand, { type: 'Update' }>, state: ResourceState): ResourceEvent[] {
    const { actor, name, resource: input, existing } = command;
    if (spec.implicit && state.resource === null && existing && existing.name === name && existing.deleteTime === undefined) {
      // First write to a resource that so far lived only in its read model: its stream starts here.
      const created: ResourceEvent = { type: `${spec.kind}Created`, data: { resource: existing } };
      const changes = update({ ...command, existing: undefined }, { resource: existing, deleted: false });
      return changes.length === 0 ? [] : [created, ...changes];
    }
    const previous = live(state, name);
    const set: JsonObject = {};
    const unset: string[] = [];
    for (const path of pathsInScope(command.scope, input)) {
      const next = getPath(input, path);
      const before = getPath(previous, path);
      if (isPresent(next)) {
        if (!deepEqual(next, before)) set[path] = next;
      } else if (before !== undefined) {
        unset.push(path); // in scope but not supplied: AIP-134 clears it
      }
    }
    // Nothing changes: no event, so a repeated update neither bumps updateTime nor grows the stream;
    // the handler answers with the current resource.
    if (Object.keys(set).length === 0 && unset.length === 0) return [];
    if (spec.derive) derivePatch(applyResourceEvent(previous, updated(set, unset, actor.now)) as Resource, set, unset);
    const event = updated(set, unset, actor.now);
    // Validate exactly what evolve (and the projector) will store.
    const merged = applyResourceEvent(previous, event);
    if (merged !== null) {
      const refs = command.refs ?? new Map();
      checkReferences(merged, previous, refs);
      spec.validate?.(merged, { actor, previous, refs, facts: command.facts });
      checkClaims(merged, previous, command.claimed);
    }
    return [event];
  }

  function act(command: Extract<ResourceCommand, { type: 'Act' }>, state: ResourceState): ResourceEvent[] {
    const rule = spec.actions?.[command.action];
    if (!rule) throw new Error(`${spec.kind} has no action '${command.action}'`);
    const resource = live(state, command.name);
    const outcome = rule(resource, command.input, command.actor);
    if (outcome === null) return [];
    if (RESERVED_SUFFIX.test(outcome.event)) throw new Error(`action event ${outcome.event} must not look like a lifecycle event`);
    const set = { ...outcome.set };
    const unset = [...(outcome.unset ?? [])];
    if (spec.derive) derivePatch(applyResourceEvent(resource, updated(set, unset, command.actor.now)) as Resource, set, unset);
    return [{ type: outcome.event, data: { ...outcome.data, set, unset, updateTime: command.actor.now } }];
  }

  /** Brings the stream in line with the desired resource (operator configuration, service seeds). */
  function sync(command: Extract<ResourceCommand, { type: 'Sync' }>, state: ResourceState): ResourceEvent[] {
    const { actor, id, resource: desired } = command;
    const name = resourceName(spec, id, command.parent);
    const current = state.resource;
    if (desired === null) {
      return current === null || state.deleted ? [] : [{ type: `${spec.kind}Deleted`, data: { deleteTime: actor.now } }];
    }
    if (current === null) {
      const resource: Resource = { ...spec.defaults, ...desired, name, createTime: actor.now, updateTime: actor.now };
      return [{ type: `${spec.kind}Created`, data: { resource: withDerived(resource) } }];
    }
    if (command.mode === 'ensure') return [];
    const events: ResourceEvent[] = [];
    if (state.deleted) events.push({ type: `${spec.kind}Undeleted`, data: { updateTime: actor.now } });
    const set: JsonObject = {};
    const unset: string[] = [];
    for (const [field, value] of Object.entries(desired)) if (!deepEqual(value, current[field])) set[field] = value;
    for (const field of spec.settable) if (current[field] !== undefined && !Object.hasOwn(desired, field)) unset.push(field);
    if (Object.keys(set).length > 0 || unset.length > 0) {
      if (spec.derive) derivePatch(applyResourceEvent(current, updated(set, unset, actor.now)) as Resource, set, unset);
      events.push(updated(set, unset, actor.now));
    }
    return events;
  }

  /** The mutable paths an update touches; immutable, output-only and unknown fields are ignored. */
  function pathsInScope(scope: UpdateScope, input: JsonObject): string[] {
    if (scope === 'all') return mutable;
    if (scope === 'all-provided') return mutable.filter((field) => isPresent(input[field]));
    for (const path of scope.paths) {
      if (!isValidPath(path)) throw invalid(`invalid field path '${path}' in update_mask`);
    }
    // Paths arrive camelCase; the API layer rejects paths the resource does not have at all.
    const paths = [...new Set(scope.paths)].filter((path) => mutable.includes(path.split('.')[0]));
    // `labels` and `labels.env` together would conflict; the whole map already covers the key.
    return paths.filter((path) => !paths.some((other) => path.startsWith(`${other}.`)));
  }

  /** With `snapshots`, every event but Created also carries the resource as it is after it. */
  function withSnapshots(events: ResourceEvent[], state: ResourceState): ResourceEvent[] {
    if (!spec.snapshots) return events;
    let resource = state.resource;
    return events.map((event) => {
      resource = applyResourceEvent(resource, event);
      if (isCreated(event) || resource === null) return event;
      return { ...event, data: { ...event.data, snapshot: resource } } as ResourceEvent;
    });
  }

  function decide(command: ResourceCommand, state: ResourceState): ResourceEvent[] {
    return withSnapshots(decideEvents(command, state), state);
  }

  function decideEvents(command: ResourceCommand, state: ResourceState): ResourceEvent[] {
    switch (command.type) {
      case 'Create':
        return create(command, state);
      case 'Update':
        return update(command, state);
      case 'Put': {
        unclaimed(command.type);
        if (state.resource === null) return create({ ...command, type: 'Create' }, state);
        const { actor, id, resource, refs } = command;
        return update({ type: 'Update', actor, name: resourceName(spec, id), resource, scope: 'all-provided', refs }, state);
      }
      case 'Delete':
        live(state, command.name);
        return [{ type: `${spec.kind}Deleted`, data: { deleteTime: command.actor.now } }];
      case 'Undelete': {
        if (!spec.undeletable) {
          throw new DomainError('UNIMPLEMENTED', `${label} resources cannot be undeleted`);
        }
        if (state.resource === null) throw notFound(`${label} '${command.name}' not found`);
        if (!state.deleted) throw failedPrecondition(`${label} '${command.name}' is not deleted`);
        writable(state.resource);
        return [{ type: `${spec.kind}Undeleted`, data: { updateTime: command.actor.now } }];
      }
      case 'Act':
        return act(command, state);
      case 'Sync':
        unclaimed(command.type);
        return sync(command, state);
      default:
        return assertNever(command);
    }
  }

  return {
    // Plain JSON. Bump when applyResourceEvent or the state's shape changes: older snapshots are then ignored.
    snapshot: { fold: `resource:${spec.kind}:1` },
    initialState: () => ({ resource: null, deleted: false }),
    evolve: (state, event) => {
      if (spec.streamEvents?.includes(event.type)) return state;
      const resource = applyResourceEvent(state.resource, event);
      return { resource, deleted: resource !== null && resource.deleteTime !== undefined };
    },
    decide,
  };
}

function assertNever(value: never): never {
  throw new Error(`unhandled command ${JSON.stringify(value)}`);
}
