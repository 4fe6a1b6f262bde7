/**
 * The incident manager a connection names: `details.incidentmgr.provider` is `incident-io` with
 * `api_key` (a bearer API key), optional `webhook_secret` (the `whsec_…` signing secret of the webhook
 * endpoint), `visibility` (`public` default, or `private`), `severity_id` (for incidents declared
 * without one) and `api_url` (default https://api.incident.io, or a test server).
 */
import { failedPrecondition, invalid } from '@svc/domain/shared/domain-error';
import { baseUrl, Details } from '../vendor';
import { IncidentIoManager } from './incident-io.incidentmgr';
import type { IncidentManager } from './incidentmgr.port';

export const INCIDENTMGR_CONNECTION_TYPE = 'CONNECTION_TYPE_INCIDENTMGR';

export interface IncidentManagerConnection {
  name: string;
  connectionType?: unknown;
  connectionDetails?: unknown;
}

export function incidentManagerOf(connection: IncidentManagerConnection, options: { timeoutMs?: number } = {}): IncidentManager {
  if (connection.connectionType !== INCIDENTMGR_CONNECTION_TYPE) throw invalid(`${connection.name} is not an incident-manager connection`);
  const details = Details.of(connection, 'incidentmgr');
  if (details.optional('provider') !== 'incident-io') {
    throw failedPrecondition(`${connection.name} names no usable incident manager (details.incidentmgr.provider must be incident-io)`, 'INCIDENTMGR_NOT_CONFIGURED');
  }
  const visibility = details.optional('visibility') ?? 'public';
  if (visibility !== 'public' && visibility !== 'private') throw failedPrecondition(`${connection.name}: details.incidentmgr.visibility must be public or private`);
  const apiUrl = details.optional('api_url');
  const severityId = details.optional('severity_id');
  return new IncidentIoManager({
    connection: connection.name,
    apiKey: details.required('api_key', 'incidentmgr'),
    visibility,
    ...(severityId ? { defaultSeverityId: severityId } : {}),
    ...(apiUrl ? { apiUrl: baseUrl(apiUrl, connection.name, 'api_url') } : {}),
    ...options,
  });
}

/** The signing secret that verifies the connection's webhook deliveries, or undefined. */
export function incidentWebhookSecretOf(connection: IncidentManagerConnection): string | undefined {
  if (connection.connectionType !== INCIDENTMGR_CONNECTION_TYPE) throw invalid(`${connection.name} is not an incident-manager connection`);
  return Details.of(connection, 'incidentmgr').optional('webhook_secret');
}
