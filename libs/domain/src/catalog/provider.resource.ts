/**
 * Providers of the service catalog (spec part 3: "Providers can be exported the same way from
 * `/v1/catalog/providers`"; their fields are not shown): what the organization's services run on or
 * buy from (a cloud region, a payment processor), seeded from the operator configuration like services
 * and read-only through the API. Our fields: display name, description, kind, and the services that
 * depend on the provider (docs/decisions.md, "Catalog providers").
 */
import { PROVIDER_KINDS } from '@svc/contracts/catalog/catalog.contract';
import { invalid } from '../shared/domain-error';
import { commonId, type ResourceSpec } from '../shared/resource';

export const PROVIDER_FIELDS = ['displayName', 'description', 'kind', 'services'];
const DISPLAY_NAME_MAX = 256;
const DESCRIPTION_MAX = 4096;
const SERVICE_NAME = /^services\/[^/]{1,128}$/;
/** Services one provider may list (ours). */
export const MAX_PROVIDER_SERVICES = 200;

export const providerSpec: ResourceSpec = {
  kind: 'Provider',
  collection: 'providers',
  idRequired: true,
  ...commonId('provider_id'),
  settable: PROVIDER_FIELDS,
  defaults: { kind: 'PROVIDER_KIND_UNSPECIFIED', services: [] },
  undeletable: true,
  validate: (provider) => validateProvider(provider),
};

export function validateProvider(provider: Record<string, unknown>): void {
  const { displayName, description, kind, services } = provider;
  if (typeof displayName !== 'string' || displayName.length < 1 || displayName.length > DISPLAY_NAME_MAX) {
    throw invalid(`display_name is required and must be 1 to ${DISPLAY_NAME_MAX} characters`);
  }
  if (description !== undefined && (typeof description !== 'string' || description.length > DESCRIPTION_MAX)) {
    throw invalid(`description must be a string of at most ${DESCRIPTION_MAX} characters`);
  }
  if (kind !== undefined && !(PROVIDER_KINDS as readonly unknown[]).includes(kind)) {
    throw invalid(`kind must be one of ${PROVIDER_KINDS.join(', ')}, got '${String(kind)}'`);
  }
  if (services !== undefined) {
    if (!Array.isArray(services) || services.length > MAX_PROVIDER_SERVICES) throw invalid(`services must be a list of at most ${MAX_PROVIDER_SERVICES} service names`);
    const seen = new Set<unknown>();
    for (const [i, name] of services.entries()) {
      if (typeof name !== 'string' || !SERVICE_NAME.test(name)) throw invalid(`services[${i}] must look like 'services/{service_id}', got '${String(name)}'`);
      if (seen.has(name)) throw invalid(`services[${i}]: '${name}' is listed twice`);
      seen.add(name);
    }
  }
}
