/**
 * The frozen service catalog (spec part 3, "Service catalog resources (frozen)"): services and their
 * dimensions, read through `svc.observability.v1.CatalogService` (REST `/v1/catalog`), and service
 * revisions through the legacy `svc.objectives.v1.ServicesService`. Every write is frozen: the
 * operator configuration is the only writer, so no settable-field DTO accepts anything.
 */
import { CATALOG_SERVICE } from '../catalog';
import { RESOURCE_FILTERS, type ChangelogApi, type ResourceApi } from '../shared/resource-api';

export const PROVIDER_KINDS = ['PROVIDER_KIND_UNSPECIFIED', 'PROVIDER_KIND_CLOUD', 'PROVIDER_KIND_SAAS', 'PROVIDER_KIND_INTERNAL'] as const;
export const SERVICE_STATES = ['SERVICE_STATE_RECOMMENDED', 'SERVICE_STATE_ACTIVE', 'SERVICE_STATE_ARCHIVED'] as const;
export const SERVICE_DIMENSION_STATES = [
  'SERVICE_DIMENSION_STATE_RECOMMENDED',
  'SERVICE_DIMENSION_STATE_ACTIVE',
  'SERVICE_DIMENSION_STATE_ARCHIVED',
] as const;
export const RECOMMENDATION_CONFIDENCES = [
  'RECOMMENDATION_CONFIDENCE_HIGH',
  'RECOMMENDATION_CONFIDENCE_MEDIUM',
  'RECOMMENDATION_CONFIDENCE_LOW',
] as const;
export const REVISION_OPERATIONS = [
  'REVISION_OPERATION_CREATE',
  'REVISION_OPERATION_UPDATE',
  'REVISION_OPERATION_DELETE',
  'REVISION_OPERATION_UNDELETE',
] as const;
/** The spec shows ACTOR_KIND_USER only; the others name the remaining kinds of subject we have. */
export const ACTOR_KINDS = ['ACTOR_KIND_USER', 'ACTOR_KIND_SERVICE_ACCOUNT', 'ACTOR_KIND_AGENT', 'ACTOR_KIND_SYSTEM'] as const;

export type RevisionOperation = (typeof REVISION_OPERATIONS)[number];
export type ActorKind = (typeof ACTOR_KINDS)[number];

/** Nothing is settable through the API (every catalog write is FEATURE_READ_ONLY). */
export class FrozenInput {}

export const servicesApi: ResourceApi = {
  service: CATALOG_SERVICE,
  singular: 'service',
  // The spec does not show the list keys of ListServices and ListServiceDimensions (docs/decisions.md).
  plural: 'services',
  idField: 'serviceId',
  input: FrozenInput,
  methods: { get: 'GetService', list: 'ListServices' },
  filters: {
    ...RESOURCE_FILTERS,
    display_name: { type: 'string', path: 'displayName' },
    state: { type: 'enum', path: 'state', values: SERVICE_STATES },
    recommendation_confidence: { type: 'enum', path: 'recommendationConfidence', values: RECOMMENDATION_CONFIDENCES },
  },
  orderBy: { name: 'name', display_name: 'displayName', create_time: 'createTime', update_time: 'updateTime' },
  // A catalog export is one sweep in a stable order.
  defaultOrder: 'name',
  etag: true,
};

/** Providers (fields ours; docs/decisions.md, "Catalog providers"): exported like services, read-only. */
export const providersApi: ResourceApi = {
  service: CATALOG_SERVICE,
  singular: 'provider',
  plural: 'providers',
  idField: 'providerId',
  input: FrozenInput,
  methods: { list: 'ListProviders' },
  filters: {
    ...RESOURCE_FILTERS,
    display_name: { type: 'string', path: 'displayName' },
    kind: { type: 'enum', path: 'kind', values: PROVIDER_KINDS },
    services: { type: 'string[]', path: 'services' },
  },
  orderBy: { name: 'name', display_name: 'displayName', create_time: 'createTime', update_time: 'updateTime' },
  defaultOrder: 'name',
  etag: true,
};

export const serviceDimensionsApi: ResourceApi = {
  service: CATALOG_SERVICE,
  singular: 'serviceDimension',
  plural: 'serviceDimensions',
  idField: 'serviceDimensionId',
  input: FrozenInput,
  methods: { get: 'GetServiceDimension', list: 'ListServiceDimensions' },
  filters: {
    ...RESOURCE_FILTERS,
    display_name: { type: 'string', path: 'displayName' },
    state: { type: 'enum', path: 'state', values: SERVICE_DIMENSION_STATES },
    source_column: { type: 'string', path: 'sourceColumn' },
  },
  orderBy: { name: 'name', display_name: 'displayName', create_time: 'createTime', update_time: 'updateTime' },
  defaultOrder: 'name',
  etag: true,
};

export const SERVICE_REVISIONS_SERVICE = 'svc.objectives.v1.ServicesService';
/** Read model (and projection) of service revisions. */
export const SERVICE_REVISIONS_STORE = 'serviceRevisions';

/** Service revisions, a changelog of each service's own events (legacy `svc.objectives.v1.ServicesService`). */
export const serviceRevisionsApi: ChangelogApi = {
  service: SERVICE_REVISIONS_SERVICE,
  methods: { list: 'ListServiceRevisions', get: 'GetServiceRevision' },
  singular: 'serviceRevision',
  plural: 'serviceRevisions',
  store: SERVICE_REVISIONS_STORE,
  segment: 'revisions',
  entryId: { pattern: /^[1-9][0-9]*$/, rule: 'revisions are numbered from 1' },
  parentPath: '_parent',
  filters: {
    name: { type: 'string', path: 'name' },
    revision_number: { type: 'number', path: 'revisionNumber' },
    operation: { type: 'enum', path: 'operation', values: REVISION_OPERATIONS },
    actor_subject: { type: 'string', path: 'actor.subject' },
    actor_kind: { type: 'enum', path: 'actor.kind', values: ACTOR_KINDS },
    create_time: { type: 'timestamp', path: 'createTime' },
  },
  // `services/s/revisions/10` comes after `.../9`: names sort by their number within the parent.
  orderBy: { name: 'revisionNumber', revision_number: 'revisionNumber', create_time: 'createTime' },
  // One configuration apply may write two revisions at the same instant (undelete, then update).
  defaultOrder: 'create_time desc, revision_number desc',
};
