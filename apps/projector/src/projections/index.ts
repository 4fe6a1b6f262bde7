import type { Projection } from '@svc/infrastructure/projection/projection';
import { catalogProjections } from './catalog.projection';
import { connectionsProjection } from './connections.projection';
import { customersProjection } from './customers.projection';
import { knownIssuesProjection } from './knownissues.projection';
import { deploymentsProjection } from './deployments.projection';
import { deploymonitorProjection } from './deploymonitor.projection';
import { notesProjection } from './notes.projection';
import { notificationPolicyProjection } from './notificationpolicy.projection';
import { organizationsProjection } from './organizations.projection';
import { accessProjection } from './roles.projection';
import { tagsProjection } from './tags.projection';
import { agentsProjection } from './agents.projection';
import { runbooksProjection } from './runbooks.projection';

/** Every projection the projector runs, each with its own checkpoint. */
export const PROJECTIONS: readonly Projection[] = [
  organizationsProjection,
  accessProjection,
  connectionsProjection,
  notesProjection,
  tagsProjection,
  agentsProjection,
  notificationPolicyProjection,
  customersProjection,
  knownIssuesProjection,
  runbooksProjection,
  deploymentsProjection,
  deploymonitorProjection,
  ...catalogProjections,
];

export function projectionNamed(name: string): Projection {
  const projection = PROJECTIONS.find((p) => p.name === name);
  if (!projection) throw new Error(`unknown projection '${name}'; known: ${PROJECTIONS.map((p) => p.name).join(', ')}`);
  return projection;
}
