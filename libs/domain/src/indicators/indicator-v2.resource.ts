/**
 * Indicators v2 (spec part 3, "Indicators (v2, frozen writes)"): names `indicators-v2/{id}`, read
 * through svc.observability.v1 (REST `/v2`), written only by the operator configuration (a Sync per
 * entry, like the service catalog). The indicator is judged by v1's rule plus `unit`, required in v2.
 * Relations are kit resources of their own (store `indicator-relations-v2`), so v1's
 * ListIndicatorRelations never shows them, nor v2's v1's. See docs/decisions.md, "Indicators v2".
 */
import { invalid } from '../shared/domain-error';
import { COMMON_ID_PATTERN, type References, type Resource, type ResourceSpec } from '../shared/resource';
import { INDICATOR_ID, indicatorSpec, judgeIndicator, RELATABLE, RELATABLE_RULE } from './indicator.resource';

/** A v2 indicator: v1's rule, and a non-empty `unit` (required when creating a v2 indicator). */
export function judgeIndicatorV2(resource: Resource, previous: Resource | undefined, refs: References): void {
  judgeIndicator(resource, previous, refs);
  if (typeof resource.unit !== 'string' || resource.unit.trim() === '') throw invalid('indicator.unit is required for a v2 indicator (such as %, ms)');
}

export const indicatorV2Spec: ResourceSpec = {
  // Streams `indicatorv2-{org}:...`: not under v1's `indicator-` prefix, so v1's projection never reads them.
  kind: 'IndicatorV2',
  collection: 'indicators-v2',
  idRequired: true,
  ...INDICATOR_ID,
  settable: indicatorSpec.settable,
  // A configuration entry that comes back is undeleted by its Sync.
  undeletable: true,
  references: indicatorSpec.references,
  validate: (resource, { previous, refs }) => judgeIndicatorV2(resource, previous, refs),
};

const V2_INDICATOR = /^indicators-v2\/[^/]+$/;

/** A v2 relation: a v2 indicator's name and a relatable resource's name, by form only (docs/decisions.md). */
export function judgeIndicatorRelationV2(relation: Record<string, unknown>): void {
  if (typeof relation.indicator !== 'string' || !V2_INDICATOR.test(relation.indicator)) {
    throw invalid(`indicator_relation.indicator must look like 'indicators-v2/{id}', got '${String(relation.indicator ?? '')}'`);
  }
  const resource = relation.resource;
  if (typeof resource !== 'string' || !RELATABLE.some((k) => k.pattern.test(resource))) {
    throw invalid(`indicator_relation.resource ${RELATABLE_RULE}, got '${String(resource ?? '')}'`);
  }
}

export const indicatorRelationV2Spec: ResourceSpec = {
  kind: 'IndicatorRelationV2',
  collection: 'indicatorRelations',
  store: 'indicator-relations-v2',
  idRequired: true,
  idPattern: COMMON_ID_PATTERN,
  idRule: 'indicator relation IDs contain only letters, digits, hyphens and underscores (at most 128 characters)',
  settable: ['indicator', 'resource'],
  undeletable: true,
  validate: (relation) => judgeIndicatorRelationV2(relation),
};
