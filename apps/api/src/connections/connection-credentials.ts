import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { failedPrecondition } from '@svc/domain/shared/domain-error';
import type { Settings } from '@svc/infrastructure/config/env';
import { omitSecrets, openSecrets, SecretBox, SecretUnavailableError } from '@svc/infrastructure/config/secrets';
import { SETTINGS } from '@svc/infrastructure/nest/tokens';
import type { Doc } from '@svc/infrastructure/read-store/read-store.port';
import { codeHostFailure, codeHostOf } from '@svc/infrastructure/integrations/codehost/codehost-of';
import type { CodeHost } from '@svc/infrastructure/integrations/codehost/codehost.port';
import { toCamelDeep } from '@svc/infrastructure/wire';
import { GetDocumentQuery } from '../cqrs/queries';
import { pick } from '../resource-kit/presentation';

/** The fields of a connection on Get (spec part 1, "Connection"); the read model also keeps times. */
export const CONNECTION_FIELDS = ['name', 'displayName', 'description', 'connectionType', 'connectionDetails', 'toolConfigurations'];

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

  /**
   * Runs `read` on the code host a connection of `org` names (NOT_FOUND outside the organization,
   * INVALID_ARGUMENT for another type), the host's failures answered with the API's codes.
   */
  async withCodeHost<T>(org: string, name: string, read: (host: CodeHost) => Promise<T>): Promise<T> {
    const connection = await this.resolve(org, name);
    try {
      return await read(codeHostOf({ ...connection, name }));
    } catch (error) {
      throw codeHostFailure(error);
    }
  }
}
