import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { serviceRevisionsApi } from '@svc/contracts/catalog/catalog.contract';
import { serviceSpec } from '@svc/domain/catalog/service.resource';
import { ResourceKit } from '../resource-kit/resource-kit';

/**
 * The frozen service catalog: services and dimensions are read-only kit resources registered by their
 * area (Get, List; the operator configuration is their only writer, and the method registry answers
 * every frozen write FEATURE_READ_ONLY); here, service revisions, a changelog of each service's stream.
 */
@Injectable()
class CatalogMethods implements OnModuleInit {
  constructor(private readonly kit: ResourceKit) {}

  onModuleInit(): void {
    this.kit.changelog(serviceSpec, serviceRevisionsApi);
  }
}

@Module({ providers: [CatalogMethods] })
export class CatalogModule {}
