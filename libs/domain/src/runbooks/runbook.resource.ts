/**
 * Runbooks (spec part 2, "Runbook"): operating procedures with the connections and tools they may use,
 * bound by the same rule as agents (connections/connection-bindings.ts).
 */
import { boundConnections, checkConnectionBindings } from '../connections/connection-bindings';
import type { ResourceSpec } from '../shared/resource';

export const runbookSpec: ResourceSpec = {
  kind: 'Runbook',
  collection: 'runbooks',
  idRequired: true,
  // The spec gives no rule for runbook IDs; we apply the common one with a 128 cap.
  idPattern: /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,127}$/,
  idRule: 'runbook_id must start with a letter or digit and contain only letters, digits, hyphens and underscores (at most 128 characters)',
  settable: ['displayName', 'description', 'text', 'connections'],
  undeletable: false,
  references: boundConnections,
  validate(runbook, { refs, previous }) {
    checkConnectionBindings(runbook, refs, previous);
  },
};
