/**
 * GitHub `issues` webhook deliveries as GitHub sends them
 * (https://docs.github.com/webhooks/webhook-events-and-payloads#issues, signed as
 * https://docs.github.com/webhooks/using-webhooks/validating-webhook-deliveries documents).
 */
import { randomUUID } from 'node:crypto';
import { githubSignature } from '@svc/infrastructure/integrations/tracker/github-webhooks';

export function issueEvent(repository: string, action: string, number: number, title: string): Record<string, unknown> {
  const [owner] = repository.split('/');
  return {
    action,
    issue: {
      id: 2_000_000 + number,
      number,
      title,
      state: action === 'closed' ? 'closed' : 'open',
      html_url: `https://github.com/${repository}/issues/${number}`,
      user: { login: 'octocat' },
      labels: [],
    },
    repository: { id: 1296269, full_name: repository, name: repository.split('/')[1], owner: { login: owner } },
    sender: { login: 'octocat', type: 'User' },
  };
}

/** The raw body and headers of a delivery signed under `secret` (`null`: unsigned). */
export function githubDelivery(body: unknown, secret: string | null, event = 'issues'): { raw: string; headers: Record<string, string> } {
  const raw = JSON.stringify(body);
  return {
    raw,
    headers: {
      'x-github-event': event,
      'x-github-delivery': randomUUID(),
      'x-github-hook-id': '12345',
      ...(secret === null ? {} : { 'x-hub-signature-256': githubSignature(secret, raw) }),
    },
  };
}
