import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import {
  SERVICE_REVISIONS_SERVICE,
  SERVICE_REVISIONS_STORE,
  serviceDimensionsApi,
  serviceRevisionsList,
  servicesApi,
} from '@svc/contracts/catalog/catalog.contract';
import { NameRequest, ParentListRequest } from '@svc/contracts/shared/requests';
import { serviceDimensionSpec, serviceSpec } from '@svc/domain/catalog/service.resource';
import { invalid } from '@svc/domain/shared/domain-error';
import { GetDocumentQuery, ListDocumentsQuery } from '../cqrs/queries';
import { MethodRegistry, type MethodDefinition } from '../http/method-registry';
import { ResourceKit } from '../resource-kit/resource-kit';

const REVISION_NAME = /^services\/[^/]+\/revisions\/[1-9][0-9]*$/;

/**
 * The frozen service catalog: services and dimensions are read-only kit resources (Get, List; the
 * operator configuration is their only writer, and the method registry answers every frozen write
 * FEATURE_READ_ONLY), and service revisions are a read model projected from each service's stream.
 */
@Injectable()
class CatalogMethods implements OnModuleInit {
  constructor(
    private readonly kit: ResourceKit,
    private readonly queries: QueryBus,
    private readonly registry: MethodRegistry,
  ) {}

  onModuleInit(): void {
    this.kit.register(serviceSpec, servicesApi);
    this.kit.register(serviceDimensionSpec, serviceDimensionsApi);
    const read = <Req extends object>(method: string, request: new () => Req, handle: MethodDefinition<Req>['handle']) =>
      ({ service: SERVICE_REVISIONS_SERVICE, method, request, handle }) as MethodDefinition<object>;
    this.registry.register(
      read('ListServiceRevisions', ParentListRequest, async ({ principal, request }) => {
        const parent = await this.kit.existing(serviceSpec, principal.org, request.parent, 'parent');
        const { filters, orderBy, defaultOrder } = serviceRevisionsList;
        const page = await this.queries.execute(
          // Revisions are never deleted: show_deleted has nothing to show.
          new ListDocumentsQuery({ collection: SERVICE_REVISIONS_STORE, filters, orderBy, defaultOrder, softDelete: false }, principal.org, request, {
            _parent: parent,
          }),
        );
        return { serviceRevisions: page.items, nextPageToken: page.nextPageToken };
      }),
      read('GetServiceRevision', NameRequest, async ({ principal, request }) => {
        if (!REVISION_NAME.test(request.name)) {
          throw invalid(`name must look like 'services/{service}/revisions/{n}' with n a positive integer, got '${request.name}'`);
        }
        return {
          serviceRevision: await this.queries.execute(new GetDocumentQuery(SERVICE_REVISIONS_STORE, principal.org, request.name, 'service revision')),
        };
      }),
    );
  }
}

@Module({ providers: [CatalogMethods] })
export class CatalogModule {}
