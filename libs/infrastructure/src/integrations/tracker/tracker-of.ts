/**
 * The tracker a connection names: `details.tracker.provider` is `github-issues` with `repository`
 * (`owner/repo`), `token`, `webhook_secret` (verifies HandleTrackerEvent deliveries) and an optional
 * `api_url` (default https://api.github.com; a GitHub Enterprise Server's https://host/api/v3, or a
 * test server). Details arrive with secrets opened, in either spelling.
 */
import { failedPrecondition, invalid } from '@svc/domain/shared/domain-error';
import { baseUrl, Details } from '../vendor';
import { GitHubIssuesTracker } from './github-issues.tracker';
import { githubWebhooks } from './github-webhooks';
import type { Tracker, TrackerWebhooks } from './tracker.port';

export const TRACKER_CONNECTION_TYPE = 'CONNECTION_TYPE_TRACKER';
export const TRACKER_PROVIDERS = ['github-issues'] as const;

export interface TrackerConnection {
  name: string;
  connectionType?: unknown;
  connectionDetails?: unknown;
}

function providerOf(connection: TrackerConnection): { details: Details; provider: (typeof TRACKER_PROVIDERS)[number] } {
  if (connection.connectionType !== TRACKER_CONNECTION_TYPE) throw invalid(`${connection.name} is not a tracker connection`);
  const details = Details.of(connection, 'tracker');
  const provider = details.optional('provider');
  if (provider !== 'github-issues') {
    throw failedPrecondition(`${connection.name} names no usable tracker (details.tracker.provider must be one of ${TRACKER_PROVIDERS.join(', ')})`, 'TRACKER_NOT_CONFIGURED');
  }
  return { details, provider };
}

export function trackerOf(connection: TrackerConnection, options: { timeoutMs?: number } = {}): Tracker {
  const { details } = providerOf(connection);
  const apiUrl = details.optional('api_url');
  return new GitHubIssuesTracker({
    connection: connection.name,
    repository: details.required('repository', 'tracker'),
    token: details.required('token', 'tracker'),
    ...(apiUrl ? { apiUrl: baseUrl(apiUrl, connection.name, 'api_url') } : {}),
    ...options,
  });
}

/** How the connection's provider signs and shapes its webhooks, and the secret that verifies them (undefined when none is set). */
export function trackerWebhooksOf(connection: TrackerConnection): { webhooks: TrackerWebhooks; secret: string | undefined } {
  const { details } = providerOf(connection);
  return { webhooks: githubWebhooks, secret: details.optional('webhook_secret') };
}
