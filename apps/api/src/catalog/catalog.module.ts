import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { serviceDimensionsApi, serviceRevisionsApi, servicesApi } from '@svc/contracts/catalog/catalog.contract';
import { serviceDimensionSpec, serviceSpec } from '@svc/domain/catalog/service.resource';
import { ResourceKit } from '../resource-kit/resource-kit';

/**
 * The frozen service catalog: services and dimensions are read-only kit resources (Get, List; the
 * operator configuration is their only writer, and the method registry answers every frozen write
 * FEATURE_READ_ONLY), and service revisions are a changelog projected from each service's stream.
 */
@Injectable()
class CatalogMethods implements OnModuleInit {
  constructor(private readonly kit: ResourceKit) {}

  onModuleInit(): void {
    this.kit.register(serviceSpec, servicesApi);
    this.kit.register(serviceDimensionSpec, serviceDimensionsApi);
    this.kit.changelog(serviceSpec, serviceRevisionsApi);
  }
}

@Module({ providers: [CatalogMethods] })
export class CatalogModule {}
