import { area } from '../area';
import { organizationsProjection } from './organizations.projection';

/** Organizations and API keys: written by the operator configuration only (no API resource). */
export const organizationsArea = area('organizations', { projections: [organizationsProjection] });
