/**
 * Indicators v2 (spec part 3, "Indicators (v2, frozen writes)"): the reads of
 * svc.observability.v1.IndicatorsService (REST `/v2`) and IndicatorRelationsService. Every write is
 * frozen (FEATURE_READ_ONLY, answered by the method registry); the operator configuration is the only
 * writer, so no settable-field DTO accepts anything. Filters and order are v1's, shared.
 */
import { INDICATOR_RELATIONS_V2_SERVICE, INDICATORS_V2_SERVICE } from '../catalog';
import { FrozenInput } from '../catalog/catalog.contract';
import type { ResourceApi } from '../shared/resource-api';
import { indicatorRelationsApi, indicatorsApi } from './indicators.contract';

export const indicatorsV2Api: ResourceApi = {
  service: INDICATORS_V2_SERVICE,
  singular: indicatorsApi.singular,
  plural: indicatorsApi.plural,
  idField: indicatorsApi.idField,
  input: FrozenInput,
  methods: { get: 'GetIndicator', list: 'ListIndicators' },
  filters: indicatorsApi.filters,
  orderBy: indicatorsApi.orderBy,
  defaultOrder: indicatorsApi.defaultOrder,
  etag: true,
};

/** ListIndicatorRelations only: the spec names no Get of a relation. Served on its RPC path (no REST path in the spec). */
export const indicatorRelationsV2Api: ResourceApi = {
  service: INDICATOR_RELATIONS_V2_SERVICE,
  singular: indicatorRelationsApi.singular,
  plural: indicatorRelationsApi.plural,
  idField: 'indicatorRelationId',
  input: FrozenInput,
  methods: { list: 'ListIndicatorRelations' },
  filters: indicatorRelationsApi.filters,
  orderBy: indicatorRelationsApi.orderBy,
  defaultOrder: indicatorRelationsApi.defaultOrder,
};
