/**
 * Runbooks (spec part 2, "Runbook"): operating procedures with the connections and tools they may use,
 * bound by the same rule as agents (connections/connection-bindings.ts).
 */
import { boundConnections, checkConnectionBindings } from '../connections/connection-bindings';
import { commonId, type ResourceSpec } from '../shared/resource';

export const runbookSpec: ResourceSpec = {
  kind: 'Runbook',
  collection: 'runbooks',
  idRequired: true,
  // The spec gives no rule for runbook IDs; we apply the common one with a 128 cap.
  ...commonId('runbook_id'),
  settable: ['displayName', 'description', 'text', 'connections'],
  undeletable: false,
  references: boundConnections,
  validate(runbook, { refs, previous }) {
    checkConnectionBindings(runbook, refs, previous);
  },
};
