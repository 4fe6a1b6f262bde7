import { indicatorsApi } from '@svc/contracts/indicators/indicators.contract';
import { indicatorSpec } from '@svc/domain/indicators/indicator.resource';
import { area } from '../area';
import { indicatorsProjection } from './indicators.projection';

/** Indicators (kit Get / List; the rest in apps/api/src/indicators), relations and activities: one projection. */
export const indicatorsArea = area('indicators', { resources: [{ spec: indicatorSpec, api: indicatorsApi }], projections: [indicatorsProjection] });
