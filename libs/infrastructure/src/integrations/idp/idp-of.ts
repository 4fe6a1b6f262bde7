/**
 * The identity provider a connection names: `details.idp.provider` is `auth0` with `domain`,
 * `client_id` and `client_secret` (a machine-to-machine application granted `create:organization_invitations`),
 * `organization_id` (`org_…`), `application_client_id` (the application invitees sign in to), optional
 * `connection_id` (the Auth0 connection they must use) and `api_url` (tests). Details arrive with
 * secrets opened, in either spelling.
 */
import { failedPrecondition, invalid } from '@svc/domain/shared/domain-error';
import { baseUrl, Details } from '../vendor';
import { Auth0IdentityProvider } from './auth0.idp';
import type { IdentityProvider } from './idp.port';

export const IDP_CONNECTION_TYPE = 'CONNECTION_TYPE_IDP';

export interface IdpConnection {
  name: string;
  connectionType?: unknown;
  connectionDetails?: unknown;
}

export function identityProviderOf(connection: IdpConnection, options: { timeoutMs?: number } = {}): IdentityProvider {
  if (connection.connectionType !== IDP_CONNECTION_TYPE) throw invalid(`${connection.name} is not an identity-provider connection`);
  const details = Details.of(connection, 'idp');
  if (details.optional('provider') !== 'auth0') {
    throw failedPrecondition(`${connection.name} names no usable identity provider (details.idp.provider must be auth0)`, 'IDP_NOT_CONFIGURED');
  }
  const apiUrl = details.optional('api_url');
  const connectionId = details.optional('connection_id');
  return new Auth0IdentityProvider({
    connection: connection.name,
    domain: details.required('domain', 'idp'),
    clientId: details.required('client_id', 'idp'),
    clientSecret: details.required('client_secret', 'idp'),
    organizationId: details.required('organization_id', 'idp'),
    applicationClientId: details.required('application_client_id', 'idp'),
    ...(connectionId ? { connectionId } : {}),
    ...(apiUrl ? { apiUrl: baseUrl(apiUrl, connection.name, 'api_url') } : {}),
    ...options,
  });
}
