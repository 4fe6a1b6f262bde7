import { area } from '../area';
import { accessProjection } from './access.projection';

/** Roles and members: one access aggregate per organization with its own decider (apps/api/src/roles). */
export const rolesArea = area('roles', { projections: [accessProjection] });
