/**
 * The pager a connection names: `details.pager.provider` is `pagerduty` (the default) with
 * `routing_key` (the Events API v2 integration key, a secret) and an optional `api_url` (default
 * https://events.pagerduty.com; the EU region's https://events.eu.pagerduty.com, or a test server).
 * Details arrive with secrets opened, in either spelling.
 */
import { failedPrecondition, invalid } from '@svc/domain/shared/domain-error';
import { baseUrl, Details } from '../vendor';
import { PagerDutyPager } from './pagerduty.pager';
import type { Pager } from './pager.port';

export const PAGER_CONNECTION_TYPE = 'CONNECTION_TYPE_PAGER';

export interface PagerConnection {
  name: string;
  connectionType?: unknown;
  connectionDetails?: unknown;
}

export function pagerOf(connection: PagerConnection, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Pager {
  if (connection.connectionType !== PAGER_CONNECTION_TYPE) throw invalid(`${connection.name} is not a pager connection`);
  const details = Details.of(connection, 'pager');
  const provider = details.optional('provider') ?? 'pagerduty';
  if (provider !== 'pagerduty') throw failedPrecondition(`${connection.name}: pager provider '${provider.slice(0, 40)}' is not supported (pagerduty is)`, 'PAGER_NOT_CONFIGURED');
  const apiUrl = details.optional('api_url');
  return new PagerDutyPager({
    connection: connection.name,
    routingKey: details.required('routing_key', 'pager'),
    ...(apiUrl ? { apiUrl: baseUrl(apiUrl, connection.name, 'api_url') } : {}),
    ...options,
  });
}
