/**
 * The frozen service catalog (spec part 3): services and their breakdown dimensions. Nothing writes
 * them through the API; the operator configuration syncs them (a Sync command per resource), so the
 * rules here judge what the configuration asks for.
 */
import {
  RECOMMENDATION_CONFIDENCES,
  SERVICE_DIMENSION_STATES,
  SERVICE_STATES,
} from '@svc/contracts/catalog/catalog.contract';
import { invalid } from '../shared/domain-error';
import { COMMON_ID_PATTERN, commonId, wireField, type ResourceSpec } from '../shared/resource';

export const DISPLAY_NAME_MAX = 200;

/** The spec gives no rule for service or dimension IDs: the common one (wire convention 5), at most 128. */
export const CATALOG_ID_PATTERN = COMMON_ID_PATTERN;

/** Service fields the configuration may set (lowerCamelCase); `state` defaults to active. */
export const SERVICE_FIELDS = [
  'displayName',
  'description',
  'context',
  'state',
  'expertSession',
  'recommendationConfidence',
  'recommendationEvidence',
  'recommendationReasoning',
] as const;

export const SERVICE_DIMENSION_FIELDS = [
  'displayName',
  'description',
  'state',
  'sourceColumn',
  'recommendationConfidence',
  'recommendationEvidence',
  'recommendationReasoning',
] as const;

export const serviceSpec: ResourceSpec = {
  kind: 'Service',
  collection: 'services',
  idRequired: true,
  ...commonId('service_id'),
  settable: SERVICE_FIELDS,
  defaults: { state: 'SERVICE_STATE_ACTIVE' },
  undeletable: true,
  // Revisions are projected from the service's own events, each with the service as it then was.
  snapshots: true,
  validate: (service) => validateService(service),
};

export const serviceDimensionSpec: ResourceSpec = {
  kind: 'ServiceDimension',
  collection: 'dimensions',
  parent: serviceSpec,
  store: 'serviceDimensions',
  idRequired: true,
  ...commonId('service_dimension_id'),
  settable: SERVICE_DIMENSION_FIELDS,
  defaults: { state: 'SERVICE_DIMENSION_STATE_ACTIVE' },
  undeletable: true,
  validate: (dimension) => validateServiceDimension(dimension),
};

/** Service rules (spec part 3, "Service"): display name 1..200, known enum values, string fields. */
export function validateService(service: Record<string, unknown>): void {
  checkCommon(service, SERVICE_STATES);
  strings(service, ['context']);
  const session = service.expertSession;
  if (session !== undefined && (typeof session !== 'string' || !/^agents\/[^/]+\/sessions\/[^/]+$/.test(session))) {
    throw invalid(`expert_session must look like 'agents/{agent}/sessions/{session}'`);
  }
}

/** ServiceDimension rules: as a service's, with dimension states and a source column. */
export function validateServiceDimension(dimension: Record<string, unknown>): void {
  checkCommon(dimension, SERVICE_DIMENSION_STATES);
  strings(dimension, ['sourceColumn']);
}

function checkCommon(resource: Record<string, unknown>, states: readonly string[]): void {
  const displayName = resource.displayName;
  if (typeof displayName !== 'string' || displayName.length < 1 || displayName.length > DISPLAY_NAME_MAX) {
    throw invalid(`display_name is required and must be 1 to ${DISPLAY_NAME_MAX} characters`);
  }
  oneOf(resource, 'state', 'state', states);
  oneOf(resource, 'recommendationConfidence', 'recommendation_confidence', RECOMMENDATION_CONFIDENCES);
  strings(resource, ['description', 'recommendationReasoning']);
  const evidence = resource.recommendationEvidence;
  if (evidence !== undefined && (!Array.isArray(evidence) || evidence.some((e) => typeof e !== 'string'))) {
    throw invalid('recommendation_evidence must be a list of strings');
  }
}

function oneOf(resource: Record<string, unknown>, field: string, wire: string, values: readonly string[]): void {
  const value = resource[field];
  if (value !== undefined && !values.includes(value as string)) {
    throw invalid(`${wire} must be one of ${values.join(', ')} (got ${JSON.stringify(value)})`);
  }
}

function strings(resource: Record<string, unknown>, fields: string[]): void {
  for (const field of fields) {
    if (resource[field] !== undefined && typeof resource[field] !== 'string') {
      throw invalid(`${wireField(field)} must be a string`);
    }
  }
}
