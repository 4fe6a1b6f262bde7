import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CONNECTIONS_SERVICE } from '@svc/contracts/catalog';
import {
  CONNECTION_FILTERS,
  CONNECTION_LIST_FIELDS,
  CONNECTION_ORDER_BY,
  CONNECTION_TYPE_FILTERS,
  CONNECTION_TYPE_ORDER_BY,
  GetConnectionRequest,
  GetConnectionResponse,
  ListConnectionsResponse,
  ListConnectionTypesResponse,
} from '@svc/contracts/connections/connections.contract';
import { ListRequest } from '@svc/contracts/shared/requests';
import { userCreatableConnectionTypes } from '@svc/domain/connections/connection-types';
import type { ListSpec } from '../cqrs/queries';
import { MethodRegistry } from '../http/method-registry';
import { defineMethod, listMethod, type ServiceSettings } from '../resource-kit/method-builders';
import { pick } from '../resource-kit/presentation';
import { CodehostHelpers } from './codehost-helpers';
import { ConnectionCredentials } from './connection-credentials';
import { INTEGRATION_PROVIDERS, INTEGRATIONS, SEALING_BOX } from './integrations.providers';
import { OAuthCallbackController } from './oauth-callback.controller';
import { OAuthHelpers } from './oauth-helpers';
import { WebhookDeliveriesController } from './webhook-deliveries.controller';
import { WebhookHelpers } from './webhook-helpers';

export { ConnectionCredentials };

/** Who may read a connection's secret values (spec/permissions.md); other members get the rest of its details. */
const SECRETS_PERMISSION = 'INTEGRATIONS_WRITE';

/** Reads: the operator configuration and the integration helpers (OAuth callbacks, webhook registrations) write connections. */
const CONNECTIONS: ServiceSettings = { service: CONNECTIONS_SERVICE };

/** svc.connections.v1.ConnectionsService (REST only): reads of the configured connections and the type catalog. */
@Injectable()
class ConnectionsMethods implements OnModuleInit {
  constructor(
    private readonly registry: MethodRegistry,
    private readonly queries: QueryBus,
    private readonly credentials: ConnectionCredentials,
  ) {}

  onModuleInit(): void {
    const connections: ListSpec = {
      collection: 'connections',
      filters: CONNECTION_FILTERS,
      orderBy: CONNECTION_ORDER_BY,
      defaultOrder: 'name',
      // Connections are never deleted today; show_deleted is accepted as the spec lists it.
      softDelete: true,
    };
    const types: ListSpec = {
      collection: 'connection-types',
      filters: CONNECTION_TYPE_FILTERS,
      orderBy: CONNECTION_TYPE_ORDER_BY,
      defaultOrder: 'type',
      softDelete: false,
      constant: userCreatableConnectionTypes(),
    };
    this.registry.register(
      defineMethod(CONNECTIONS, 'GetConnection', { request: GetConnectionRequest, response: GetConnectionResponse }, 'read', async ({ principal, request }) => ({
        connection: principal.permissions.includes(SECRETS_PERMISSION)
          ? await this.credentials.resolve(principal.org, `connections/${request.connectionId}`)
          : await this.credentials.withoutSecrets(principal.org, `connections/${request.connectionId}`),
      })),
      // Lists never carry details, so no secret (sealed or not) leaves through them.
      listMethod(this.queries, CONNECTIONS, 'ListConnections', {
        request: ListRequest,
        response: ListConnectionsResponse,
        spec: connections,
        key: 'connections',
        shape: (doc) => pick(doc, CONNECTION_LIST_FIELDS),
      }),
      listMethod(this.queries, CONNECTIONS, 'ListConnectionTypes', { request: ListRequest, response: ListConnectionTypesResponse, spec: types, key: 'types' }),
    );
  }
}

@Module({
  controllers: [OAuthCallbackController, WebhookDeliveriesController],
  providers: [...INTEGRATION_PROVIDERS, ConnectionCredentials, ConnectionsMethods, CodehostHelpers, OAuthHelpers, WebhookHelpers],
  exports: [ConnectionCredentials, INTEGRATIONS, SEALING_BOX],
})
export class ConnectionsModule {}
