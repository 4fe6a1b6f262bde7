import { Inject, Injectable, Module, type OnModuleInit } from '@nestjs/common';
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
import { failedPrecondition } from '@svc/domain/shared/domain-error';
import type { Settings } from '@svc/infrastructure/config/env';
import { omitSecrets, openSecrets, SecretBox, SecretUnavailableError } from '@svc/infrastructure/config/secrets';
import { SETTINGS } from '@svc/infrastructure/nest/tokens';
import type { Doc } from '@svc/infrastructure/read-store/read-store.port';
import { toCamelDeep } from '@svc/infrastructure/wire';
import { GetDocumentQuery, type ListSpec } from '../cqrs/queries';
import { MethodRegistry } from '../http/method-registry';
import { defineMethod, listMethod, type ServiceSettings } from '../resource-kit/method-builders';
import { pick } from '../resource-kit/presentation';

/** The fields of a connection on Get (spec part 1, "Connection"); the read model also keeps times. */
const CONNECTION_FIELDS = ['name', 'displayName', 'description', 'connectionType', 'connectionDetails', 'toolConfigurations'];

/** Who may read a connection's secret values (spec/permissions.md); other members get the rest of its details. */
const SECRETS_PERMISSION = 'INTEGRATIONS_WRITE';

/** Reads only: the operator configuration is the only writer of connections. */
const CONNECTIONS: ServiceSettings = { service: CONNECTIONS_SERVICE };

/**
 * A connection with its credentials in clear, for GetConnection and for areas that use a connection
 * (webhook verification, code host reads). The read model holds them sealed; they are opened here,
 * per use, from the api's own key and environment.
 */
@Injectable()
export class ConnectionCredentials {
  private readonly box: SecretBox;

  constructor(
    private readonly queries: QueryBus,
    @Inject(SETTINGS) settings: Settings,
  ) {
    this.box = SecretBox.fromEnvironment(settings.dataDir);
  }

  /** NOT_FOUND outside the caller's organization; FAILED_PRECONDITION when a secret cannot be opened here. */
  async resolve(org: string, name: string): Promise<Doc> {
    const doc = await this.queries.execute(new GetDocumentQuery('connections', org, name, 'connection'));
    let details: unknown;
    try {
      details = openSecrets(doc.connectionDetails ?? {}, this.box);
    } catch (error) {
      if (!(error instanceof SecretUnavailableError)) throw error;
      // The operator can fix this (set the variable, restore the key); the message holds no secret.
      throw failedPrecondition(`the credentials of connection '${name}' are not available: ${error.message}`, 'CONNECTION_SECRET_UNAVAILABLE');
    }
    // The configuration may spell detail keys snake_case (`ssl_mode`); the wire is lowerCamelCase.
    return pick({ ...doc, connectionDetails: toCamelDeep(details) }, CONNECTION_FIELDS);
  }

  /** The connection with its secret fields left out: nothing is opened, so nothing can fail to open. */
  async withoutSecrets(org: string, name: string): Promise<Doc> {
    const doc = await this.queries.execute(new GetDocumentQuery('connections', org, name, 'connection'));
    return pick({ ...doc, connectionDetails: toCamelDeep(omitSecrets(doc.connectionDetails ?? {})) }, CONNECTION_FIELDS);
  }
}

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

@Module({ providers: [ConnectionCredentials, ConnectionsMethods], exports: [ConnectionCredentials] })
export class ConnectionsModule {}
