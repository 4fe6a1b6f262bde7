import type { Projection } from '@svc/infrastructure/projection/projection';
import { catalogProjections } from './catalog.projection';
import { connectionsProjection } from './connections.projection';
import { notesProjection } from './notes.projection';
import { organizationsProjection } from './organizations.projection';
import { accessProjection } from './roles.projection';

/** Every projection the projector runs, each with its own checkpoint. */
export const PROJECTIONS: readonly Projection[] = [
  organizationsProjection,
  accessProjection,
  connectionsProjection,
  notesProjection,
  ...catalogProjections,
];

export function projectionNamed(name: string): Projection {
  const projection = PROJECTIONS.find((p) => p.name === name);
  if (!projection) throw new Error(`unknown projection '${name}'; known: ${PROJECTIONS.map((p) => p.name).join(', ')}`);
  return projection;
}
