/**
 * GitHub's webhook deliveries (https://docs.github.com/webhooks/using-webhooks/validating-webhook-deliveries):
 * `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body under the webhook secret>`, the event
 * name in `X-GitHub-Event` and a delivery GUID in `X-GitHub-Delivery`. The payloads
 * (https://docs.github.com/webhooks/webhook-events-and-payloads): `issues` and `issue_comment` carry
 * `action`, `issue` {id, number, title, state, html_url}, `repository.full_name`, `sender.login`.
 * GitHub signs no timestamp, so a captured delivery verifies again: what a tracker event does must be
 * idempotent by delivery (docs/decisions.md).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Ticket, TrackerEvent, TrackerWebhooks, WebhookCheck, WebhookHeaders } from './tracker.port';

export const GITHUB_SIGNATURE_HEADER = 'x-hub-signature-256';
export const GITHUB_EVENT_HEADER = 'x-github-event';
export const GITHUB_DELIVERY_HEADER = 'x-github-delivery';

/** The header value GitHub sends for a body under a secret. */
export function githubSignature(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

export const githubWebhooks: TrackerWebhooks = {
  verify(secret: string, headers: WebhookHeaders, rawBody: string | Buffer): WebhookCheck {
    const presented = headers[GITHUB_SIGNATURE_HEADER];
    if (!presented) return 'missing';
    const expected = Buffer.from(githubSignature(secret, rawBody), 'utf8');
    const given = Buffer.from(presented, 'utf8');
    return given.length === expected.length && timingSafeEqual(given, expected) ? 'ok' : 'mismatch';
  },

  projectOf(body: Record<string, unknown>): string | undefined {
    const fullName = obj(body.repository).full_name;
    return typeof fullName === 'string' && fullName !== '' ? fullName : undefined;
  },

  parse(headers: WebhookHeaders, body: Record<string, unknown>): TrackerEvent {
    const issue = obj(body.issue);
    const ticket: Ticket | undefined =
      Object.keys(issue).length === 0
        ? undefined
        : { id: str(issue.id), key: `#${str(issue.number)}`, url: str(issue.html_url), title: str(issue.title).slice(0, 256), state: str(issue.state) };
    return {
      delivery: (headers[GITHUB_DELIVERY_HEADER] ?? '').slice(0, 100),
      kind: (headers[GITHUB_EVENT_HEADER] ?? '').slice(0, 100),
      action: str(body.action).slice(0, 100),
      project: str(obj(body.repository).full_name).slice(0, 201),
      ...(ticket ? { ticket } : {}),
      actor: str(obj(body.sender).login).slice(0, 100),
    };
  },
};
