/**
 * Customers (spec part 3, "Customer"): identified by the external ID telemetry carries, unique among
 * the organization's live customers (claimed by the kit, see shared/unique-claim.ts); `id` is the
 * SHA-256 hex of that external ID.
 */
import { invalid } from '../shared/domain-error';
import { commonId, type ResourceSpec } from '../shared/resource';
import { sha256Hex } from '../shared/unique-claim';

export const customerSpec: ResourceSpec = {
  kind: 'Customer',
  collection: 'customers',
  idRequired: true,
  // Spec: alphanumeric, hyphens, underscores, starting with a letter or digit; the 128 cap is ours.
  ...commonId('customer_id'),
  settable: ['externalId', 'displayName', 'description', 'runbook'],
  undeletable: false,
  unique: ['externalId'],
  derive: (customer) => ({ id: typeof customer.externalId === 'string' ? sha256Hex(customer.externalId) : undefined }),
  validate(customer) {
    if (typeof customer.externalId !== 'string' || customer.externalId === '') {
      throw invalid(`customer '${customer.name}' needs an external_id`);
    }
  },
};
