import { area } from '../area';
import { connectionsProjection } from './connections.projection';

/** Connections from the operator configuration (read through apps/api/src/connections). */
export const connectionsArea = area('connections', { projections: [connectionsProjection] });
