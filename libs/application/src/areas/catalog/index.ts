import { providersApi, serviceDimensionsApi, servicesApi } from '@svc/contracts/catalog/catalog.contract';
import { providerSpec } from '@svc/domain/catalog/provider.resource';
import { serviceDimensionSpec, serviceSpec } from '@svc/domain/catalog/service.resource';
import { resourceProjection } from '@svc/infrastructure/projection/resource.projection';
import { area } from '../area';
import { serviceRevisionsProjection } from './catalog.projection';

/** The frozen service catalog: services, dimensions and providers (kit resources), and the revisions changelog. */
export const catalogArea = area('catalog', {
  resources: [
    { spec: serviceSpec, api: servicesApi },
    { spec: serviceDimensionSpec, api: serviceDimensionsApi },
    { spec: providerSpec, api: providersApi },
  ],
  projections: [
    resourceProjection(serviceSpec, servicesApi),
    resourceProjection(serviceDimensionSpec, serviceDimensionsApi),
    serviceRevisionsProjection,
    resourceProjection(providerSpec, providersApi),
  ],
});
