/**
 * The wire half of the resource kit: how a resource appears on the API (service, method names,
 * request/response keys, settable-field DTO, filterable and sortable fields, the permission its
 * writes need). The domain half (rules, events) is the ResourceSpec in libs/domain.
 */
import type { Permission } from '../roles/permissions';

export type FilterFieldType = 'string' | 'number' | 'boolean' | 'timestamp' | 'enum' | 'map' | 'string[]';

export interface FilterField {
  type: FilterFieldType;
  /** Document path (lowerCamelCase). */
  path: string;
  /** Allowed values of an enum field. */
  values?: readonly string[];
  /**
   * Free text (a note body, a description) is rarely filtered on and costs every write an index
   * entry: `false` keeps it filterable (evaluated on the candidates) without an index.
   */
  indexed?: boolean;
}

/** Keyed by the snake_case name used in filters. */
export type FilterSchema = Record<string, FilterField>;

/** What every resource can be filtered on: its name and its create and update times. */
export const RESOURCE_FILTERS = {
  name: { type: 'string', path: 'name' },
  create_time: { type: 'timestamp', path: 'createTime' },
  update_time: { type: 'timestamp', path: 'updateTime' },
} as const satisfies FilterSchema;

/** What a List accepts in `filter` and `order_by`. */
export interface ListQueryFields {
  filters: FilterSchema;
  /** snake_case order_by field to document path. */
  orderBy: Record<string, string>;
  defaultOrder: string;
  /** false: `name` is only the tiebreaker, not a field the client may order by. Default true. */
  nameSortable?: boolean;
}

export interface ResourceApi {
  /** Fully qualified service, e.g. `svc.notes.v1.NotesService`. */
  service: string;
  /** Response key of one resource (`note`) and of a list (`notes`). */
  singular: string;
  plural: string;
  /** Request field holding the client-chosen ID on create, camelCase (`noteId`). */
  idField: string;
  /** class-validator DTO of the settable fields (camelCase properties). */
  input: new () => object;
  /** RPC method names; a resource without one of them (a singleton, a read-only one) leaves it out. */
  methods: {
    /** Absent for a resource the spec lists but does not get by name (v2 indicator relations). */
    get?: string;
    create?: string;
    update?: string;
    delete?: string;
    list?: string;
    undelete?: string;
  };
  /** Name Get falls back to when the request names none (the singleton `issue-notification-policies/default`). */
  singleton?: string;
  filters: FilterSchema;
  /** snake_case order_by field to document path. `name` is always added as the tiebreaker. */
  orderBy: Record<string, string>;
  /** false: clients may order only by the `orderBy` fields, not by `name` (ListAgents). Default true. */
  nameSortable?: boolean;
  defaultOrder: string;
  /** Permission key every write of this resource needs (a read-only resource has none). */
  permission?: Permission;
  /** CreateX accepts a request without the resource object, as an empty one (CreateAgent). */
  optionalOnCreate?: boolean;
  /** UpdateX refuses a missing or empty update_mask, and `*` (agents: no full replacement). */
  maskRequired?: boolean;
  /**
   * camelCase server-set fields beyond name and the times (`system`, `createdBy`): dropped from an
   * update_mask like the times (AIP-203) instead of answered as unknown.
   */
  outputOnly?: readonly string[];
  /**
   * camelCase paths UpdateX touches when update_mask is absent, where the spec gives a default mask
   * (UpdateDeploymentEnvironment: `monitoring_enabled`); otherwise every provided field.
   */
  defaultMask?: readonly string[];
  /**
   * Top-level fields ListX returns when the spec's list form is a subset (Get returns everything);
   * with `etag`, items also carry the whole resource's etag.
   */
  listFields?: readonly string[];
  /** camelCase dotted paths under the resource whose object keys are user data, kept verbatim (labels). */
  preserveKeysUnder?: readonly string[];
  /**
   * A superseded version of the service (customers v1): every answer carries the RFC 9745
   * `Deprecation` header for `since` (RFC 3339) and a `Link` to the same method of `successor`.
   */
  deprecated?: { since: string; successor: string };
  /** Responses carry `etag` (AIP-154), a hash of the resource's content: it changes with every change. */
  etag?: boolean;
  /** Key casing of every answer of the service: lowerCamelCase by default; agent SLOs answer snake_case. */
  responseCase?: ResponseCase;
  /**
   * Turns a REST call's request (path variables such as `{agent}` and `{slo}` as fields) into the
   * method's request (`parent`, `name`), before validation; RPC calls are not touched.
   */
  fromRest?(method: string, request: Record<string, unknown>): Record<string, unknown>;
}

export type ResponseCase = 'camel' | 'snake';

/**
 * A changelog under a resource (deployment status events, service revisions): entries projected
 * from the parent's own events, read-only, listed per parent and optionally fetched by name.
 */
export interface ChangelogApi extends Pick<ResourceApi, 'responseCase' | 'fromRest'> {
  service: string;
  /** ListX (takes `parent`) and, when the spec has one, GetX (takes `name`). */
  methods: { list: string; get?: string };
  /** Response keys: one entry (`serviceRevision`) and a list (`serviceRevisions`). */
  singular: string;
  plural: string;
  /** Read model of the entries. */
  store: string;
  /** Name segment of the entries under the parent: `services/s/revisions/3`. */
  segment: string;
  /** What an entry ID looks like (revisions are numbered from 1), and how messages describe it. */
  entryId?: { pattern: RegExp; rule: string };
  /** Document path holding the parent's name (an entry's wire field such as `deployment`, or `_parent`). */
  parentPath: string;
  filters: FilterSchema;
  orderBy: Record<string, string>;
  defaultOrder: string;
}
