/**
 * The domain half of the resource kit: one generic decider for resources that follow the
 * standard Create / Update (field mask) / Delete / Undelete pattern. An area supplies a ResourceSpec;
 * rules that only that area has plug in through its hooks.
 */
import type { Actor } from './decider';

/** A resource in its response shape (lowerCamelCase), e.g. { name, displayName, createTime, ... }. */
export type Resource = Record<string, unknown> & { name: string };

/** Which fields an update touches: every settable field, only those present in the body, or a list. */
export type UpdateScope = 'all' | 'all-provided' | { paths: string[] };

export interface ResourceSpec {
  /** PascalCase kind; events are `${kind}Created`, `${kind}Updated`, `${kind}Deleted`, `${kind}Undeleted`. */
  kind: string;
  /** Collection segment of the name: `notes` gives `notes/{id}`. */
  collection: string;
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
  /** Area rules: validate the resource about to be stored (throw DomainError). */
  validate?(resource: Resource, context: { actor: Actor; previous?: Resource }): void;
  /** Area rules: fields the server sets on create (e.g. createdBy, an initial status). */
  onCreate?(resource: Resource, actor: Actor): Resource;
}

export type ResourceCommand =
  | { type: 'Create'; actor: Actor; id: string; resource: Record<string, unknown> }
  | { type: 'Update'; actor: Actor; name: string; resource: Record<string, unknown>; scope: UpdateScope }
  | { type: 'Delete'; actor: Actor; name: string }
  | { type: 'Undelete'; actor: Actor; name: string };

export interface ResourceState {
  resource: Resource | null;
  deleted: boolean;
}

export type ResourceEvent =
  | { type: `${string}Created`; data: { resource: Resource } }
  | { type: `${string}Updated`; data: { set: Record<string, unknown>; unset: string[]; updateTime: string } }
  | { type: `${string}Deleted`; data: { deleteTime: string } }
  | { type: `${string}Undeleted`; data: { updateTime: string } };
