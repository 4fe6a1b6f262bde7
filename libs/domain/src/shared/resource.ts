/**
 * The domain half of the resource kit: one generic decider for resources that follow the
 * standard Create / Update (field mask) / Delete / Undelete pattern. An area supplies a ResourceSpec;
 * rules that only that area has plug in through its hooks.
 */
import type { Actor } from './decider';
import type { JsonObject } from './json-path';

/** A resource in its response shape (lowerCamelCase), e.g. { name, displayName, createTime, ... }. */
export type Resource = Record<string, unknown> & { name: string };

/** Which fields an update touches: every settable field, only those present in the body, or a list. */
export type UpdateScope = 'all' | 'all-provided' | { paths: string[] };

/**
 * Other resources a command refers to (`tags/x`, `connections/y`), looked up by the handler before
 * deciding: the stored resource, or null when it does not exist. Deciders stay pure; the facts
 * arrive in the command.
 */
export type References = ReadonlyMap<string, Resource | null>;

export interface ValidationContext {
  actor: Actor;
  /** The resource before this update (absent on create). */
  previous?: Resource;
  refs: References;
  /** What the handler established by I/O before deciding (e.g. an indicator query's plan), for `validate`. */
  facts?: Facts;
}

/** Results of I/O a handler did before deciding (the decider stays pure), keyed by the area that reads them. */
export type Facts = Readonly<Record<string, unknown>>;

/**
 * An area-specific command on one live resource (e.g. a deployment's status change): it answers with
 * the event type and the patch that event applies, plus any payload the event carries for changelogs.
 */
export type ResourceAction = (
  resource: Resource,
  input: JsonObject,
  actor: Actor,
) => { event: string; set: JsonObject; unset?: string[]; data?: JsonObject } | null;

export interface ResourceSpec {
  /** PascalCase kind; events are `${kind}Created`, `${kind}Updated`, `${kind}Deleted`, `${kind}Undeleted`. */
  kind: string;
  /** Collection segment of the name: `notes` gives `notes/{id}`. */
  collection: string;
  /**
   * Nested resources: the parent resource's spec. Names extend the parent's name
   * (`services/{service}/dimensions/{dimension}`); Create and Sync then carry the parent's name.
   */
  parent?: ResourceSpec;
  /**
   * Read-model collection (and the name of the resource's own projection). Defaults to `collection`;
   * a nested resource needs its own, since its collection segment (`dimensions`, `sessions`) is not
   * unique. Where writes wait is `projection`.
   */
  store?: string;
  /**
   * Every event but `${kind}Created` (whose `resource` already is one) also carries `snapshot`: the
   * whole resource after the event, so a changelog projected from the stream (service revisions)
   * needs no read of the resource.
   */
  snapshots?: boolean;
  /**
   * Event types the resource's stream carries beyond its resource events (a session's messages and
   * turns, decided by the area's own decider): the kit's fold passes over them.
   */
  streamEvents?: readonly string[];
  /** Create requires a client-chosen ID (otherwise the handler supplies a generated one). */
  idRequired: boolean;
  /** Rule for client-chosen IDs, with the message shown when it fails. */
  idPattern: RegExp;
  idRule: string;
  /** Top-level fields (camelCase) the client may set on create and update. */
  settable: readonly string[];
  /** Settable on create, ignored on update. */
  immutable?: readonly string[];
  /** Field values on create when the client leaves them out. */
  defaults?: Record<string, unknown>;
  /** Supports UndeleteX. */
  undeletable: boolean;
  /**
   * Names of other resources this one refers to. Each newly referenced name must exist and be live
   * (checked by the kit before `validate`, which gets the looked-up resources for finer rules).
   */
  references?(resource: JsonObject): string[];
  /** Area rules: validate the resource about to be stored (throw DomainError). */
  validate?(resource: Resource, context: ValidationContext): void;
  /** Area rules: fields the server sets on create (e.g. createdBy, an initial status). */
  onCreate?(resource: Resource, actor: Actor): Resource;
  /**
   * Output-only fields computed from the others (a customer's `id`, the hash of its externalId): set
   * on create and recomputed by every update; an undefined value clears the field.
   */
  derive?(resource: Resource): JsonObject;
  /**
   * Top-level string fields unique among the organization's live resources of this kind (a
   * customer's externalId). The kit claims each new value in a guard stream before appending
   * (`unique-claim.ts`); the decider refuses to set a value the command does not carry a claim for.
   * Written through Create and Update only: not combinable with `undeletable` (an undelete would
   * have to claim again) or `implicit`, and Put and Sync, which carry no claims, refuse such a kind.
   */
  unique?: readonly string[];
  /**
   * Resources the API may not change (system tags, config-seeded entries): returns why, and Update,
   * Delete, Undelete and area actions answer FAILED_PRECONDITION with that message (Sync may).
   */
  readOnly?(resource: Resource): string | undefined;
  /**
   * Area commands beyond CRUD, by action name; their events carry a patch like `${kind}Updated`, to
   * which the kit adds changed `derive` fields. The action is the rule: `validate` is not called.
   */
  actions?: Record<string, ResourceAction>;
  /**
   * The resource comes into being in its read model, projected from other resources' events (a
   * deployment environment from the first deployment naming it), before its own stream exists. An
   * Update then carries that document as `existing`, and on an empty stream the decider starts the
   * stream with `${kind}Created` of it, followed by the update's event.
   */
  implicit?: boolean;
  /**
   * Checkpoint name of the projection serving this resource, when one combined projection serves
   * several related collections (default: `store`, the resource's own). Writes answer once it has
   * passed them. Not written in a domain spec: its area sets it (libs/application/src/areas).
   */
  projection?: string;
}

/**
 * Values of `unique` fields the API has claimed for this command (field to value), or `pending` for
 * the API's dry run before it claims (whose events are never appended).
 */
export type Claimed = Readonly<Record<string, string>> | 'pending';

export type ResourceCommand =
  | { type: 'Create'; actor: Actor; id: string; resource: JsonObject; refs?: References; claimed?: Claimed; parent?: string; facts?: Facts }
  | {
      type: 'Update';
      actor: Actor;
      name: string;
      resource: JsonObject;
      scope: UpdateScope;
      refs?: References;
      claimed?: Claimed;
      facts?: Facts;
      /** The read-model document of an `implicit` resource (null when there is none). */
      existing?: Resource | null;
    }
  /**
   * Create, or update every provided field of, the resource: for resources one trusted producer
   * records and then reports progress on (deployment monitor evaluations from the agent runtime).
   */
  | { type: 'Put'; actor: Actor; id: string; resource: JsonObject; refs?: References }
  | { type: 'Delete'; actor: Actor; name: string }
  | { type: 'Undelete'; actor: Actor; name: string }
  | { type: 'Act'; action: string; actor: Actor; name: string; input: JsonObject }
  /**
   * Makes the resource match what the service or the operator configuration says it is: created,
   * updated, deleted (`resource: null`) or undeleted as needed; nothing when it already matches.
   * `ensure` only creates a missing resource (a singleton users may then edit). Bypasses the ID rule,
   * readOnly, onCreate and validate, which guard the API, not the operator (whose configuration is
   * judged when it is parsed); `derive` and `snapshots` apply.
   */
  | { type: 'Sync'; actor: Actor; id: string; resource: JsonObject | null; mode: 'replace' | 'ensure'; parent?: string };

export interface ResourceState {
  resource: Resource | null;
  deleted: boolean;
}

/** A patch event: `${kind}Updated`, or an area action's event, which may carry extra payload. */
export interface PatchData {
  set: Record<string, unknown>;
  unset: string[];
  updateTime: string;
  [extra: string]: unknown;
}

/**
 * `${kind}Created` { resource }, `${kind}Updated` and area actions (a PatchData), `${kind}Deleted`
 * { deleteTime }, `${kind}Undeleted` { updateTime }; with `snapshots`, all but Created add { snapshot }.
 */
export interface ResourceEvent {
  type: string;
  data: { resource: Resource } | PatchData | { deleteTime: string } | { updateTime: string };
}

/** `KnownIssue` gives `known issue`, for messages. */
export function kindLabel(kind: string): string {
  return kind.replace(/(?<!^)([A-Z])/g, ' $1').toLowerCase();
}

/** `externalId` gives `external_id`: fields in messages use the wire spelling. */
export function wireField(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** The resource as it is after one of its events: Created's resource, or the snapshot others carry. */
export function snapshotOf(event: ResourceEvent): Resource | undefined {
  const data = event.data as { resource?: Resource; snapshot?: Resource };
  return event.type.endsWith('Created') ? data.resource : data.snapshot;
}

/** Read-model collection of a resource (and name of its own projection; see ResourceSpec.projection). */
export function storeOf(spec: Pick<ResourceSpec, 'collection' | 'store'>): string {
  return spec.store ?? spec.collection;
}

/** `notes/{id}`, or under its parent for a nested resource: `services/checkout/dimensions/{id}`. */
export function resourceName(spec: ResourceSpec, id: string, parent?: string): string {
  if (!spec.parent) return `${spec.collection}/${id}`;
  if (parent === undefined) throw new Error(`a ${spec.kind} is nested under a ${spec.parent.kind}: its parent is required`);
  return `${parent}/${spec.collection}/${id}`;
}

/** Names of this resource: `^notes/[^/]+$`, `^services/[^/]+/dimensions/[^/]+$`. */
export function namePattern(spec: ResourceSpec): RegExp {
  return new RegExp(`^${nameSource(spec)}$`);
}

/** How a name looks, for messages: `notes/{id}`, `services/{id}/dimensions/{id}`. */
export function nameTemplate(spec: ResourceSpec, idLabel = 'id'): string {
  return `${spec.parent ? `${nameTemplate(spec.parent)}/` : ''}${spec.collection}/{${idLabel}}`;
}

/** The parent of a nested resource's name (`services/s/dimensions/d` gives `services/s`). */
export function parentName(name: string): string {
  return name.split('/').slice(0, -2).join('/');
}

function nameSource(spec: ResourceSpec): string {
  const collection = spec.collection.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return `${spec.parent ? `${nameSource(spec.parent)}/` : ''}${collection}/[^/]+`;
}

/** One stream per resource: `note-acme:notes/n1` (category = lowercase kind, no `-`, for `$ce-note`). */
export function resourceStreamId(spec: Pick<ResourceSpec, 'kind'>, org: string, name: string): string {
  return `${spec.kind.toLowerCase()}-${org}:${name}`;
}

/** IDs by the common rule of wire convention 5 (letters, digits, hyphens, underscores; a letter or digit first). */
export const COMMON_ID_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,127}$/;

/** The common ID rule for a resource whose create takes `field` (`note_id`); the 128-character cap is ours. */
export function commonId(field: string): Pick<ResourceSpec, 'idPattern' | 'idRule'> {
  return {
    idPattern: COMMON_ID_PATTERN,
    idRule: `${field} must start with a letter or digit and contain only letters, digits, hyphens and underscores (at most 128 characters)`,
  };
}
