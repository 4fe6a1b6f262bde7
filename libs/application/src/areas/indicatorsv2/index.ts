import { indicatorRelationsV2Api, indicatorsV2Api } from '@svc/contracts/indicators/indicators-v2.contract';
import { indicatorRelationV2Spec, indicatorV2Spec } from '@svc/domain/indicators/indicator-v2.resource';
import { resourceProjection } from '@svc/infrastructure/projection/resource.projection';
import { area } from '../area';

/**
 * Frozen v2 indicators (kit Get / List) and their relations (kit List), each its own read model
 * written by its own projection; the operator configuration's seeds are the only writers.
 */
export const indicatorsV2Area = area('indicatorsv2', {
  resources: [
    { spec: indicatorV2Spec, api: indicatorsV2Api },
    { spec: indicatorRelationV2Spec, api: indicatorRelationsV2Api },
  ],
  projections: [resourceProjection(indicatorV2Spec, indicatorsV2Api), resourceProjection(indicatorRelationV2Spec, indicatorRelationsV2Api)],
});
