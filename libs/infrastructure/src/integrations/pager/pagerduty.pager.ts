/**
 * The PagerDuty pager: one trigger event to the Events API v2 (`POST {api_url}/v2/enqueue`, the
 * connection's integration routing key in the body), which opens an incident on the service of that
 * integration. Plain fetch rather than @pagerduty/pdjs: pdjs builds `https://{server}/v2/enqueue` (no
 * plain-HTTP test server, no EU region URL with a path), its `requestTimeout` aborts nothing, and it
 * sleeps 20 s before each of up to three retries of a 429 inside the caller's time budget
 * (docs/decisions.md, "Pager, tracker, incident manager and identity provider ports").
 * Statuses as PagerDuty documents them (https://developer.pagerduty.com/docs/events-api-v2-overview,
 * "API Response Codes & Retry Logic"): 202 accepted, 400 invalid event, 429 throttled, 5xx.
 */
import { callJson, scrub, text, VendorError, vendorStatusError } from '../vendor';
import { MAX_PAGER_DEDUP_KEY, MAX_PAGER_DETAILS, MAX_PAGER_TITLE, PAGER_SEVERITIES, type NewPagerIncident, type Pager, type PagerIncident } from './pager.port';

export const PAGERDUTY_EVENTS_URL = 'https://events.pagerduty.com';

export interface PagerDutyOptions {
  /** The connection's name, for messages. */
  connection: string;
  routingKey: string;
  /** `https://events.pagerduty.com` (default), `https://events.eu.pagerduty.com`, or a test server. */
  apiUrl?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export class PagerDutyPager implements Pager {
  private readonly subject: string;

  constructor(private readonly options: PagerDutyOptions) {
    this.subject = `PagerDuty (${options.connection})`;
  }

  async createIncident(incident: NewPagerIncident): Promise<PagerIncident> {
    check(incident);
    const event = {
      routing_key: this.options.routingKey,
      event_action: 'trigger',
      ...(incident.dedupKey ? { dedup_key: incident.dedupKey } : {}),
      payload: {
        summary: incident.title,
        source: incident.source,
        severity: incident.severity,
        timestamp: new Date().toISOString(),
        ...(incident.details ? { custom_details: { details: incident.details } } : {}),
      },
      client: 'svc',
      ...(incident.links && incident.links.length > 0 ? { links: incident.links } : {}),
    };
    const answer = await callJson(this.subject, `${this.options.apiUrl ?? PAGERDUTY_EVENTS_URL}/v2/enqueue`, {
      method: 'POST',
      headers: {},
      body: event,
      timeoutMs: this.options.timeoutMs ?? 10_000,
      signal: this.options.signal,
    });
    // PagerDuty answers 202; any 2xx is an accepted event.
    if (answer.status >= 200 && answer.status < 300) {
      const dedupKey = text(answer.body, 'dedup_key');
      if (dedupKey === '') throw new VendorError('UNAVAILABLE', `${this.subject} accepted the event without a dedup_key`);
      return { dedupKey, message: text(answer.body, 'message') || 'Event processed' };
    }
    const errors = (answer.body as { errors?: unknown } | undefined)?.errors;
    const detail = [text(answer.body, 'message'), ...(Array.isArray(errors) ? errors.filter((e): e is string => typeof e === 'string') : [])].filter(Boolean).join('; ');
    throw vendorStatusError(this.subject, answer.status, scrub(detail, [this.options.routingKey]), [this.options.routingKey]);
  }
}

function check(incident: NewPagerIncident): void {
  const bad = (why: string) => new VendorError('INVALID_ARGUMENT', why);
  if (typeof incident.title !== 'string' || incident.title.trim() === '') throw bad('an incident needs a title');
  if (incident.title.length > MAX_PAGER_TITLE) throw bad(`the title is longer than ${MAX_PAGER_TITLE} characters`);
  if (!PAGER_SEVERITIES.includes(incident.severity)) throw bad(`severity must be one of ${PAGER_SEVERITIES.join(', ')}`);
  if (incident.source.trim() === '' || incident.source.length > 255) throw bad('source must be 1 to 255 characters');
  if (incident.dedupKey !== undefined && (incident.dedupKey === '' || incident.dedupKey.length > MAX_PAGER_DEDUP_KEY)) throw bad(`dedup_key must be 1 to ${MAX_PAGER_DEDUP_KEY} characters`);
  if (incident.details !== undefined && incident.details.length > MAX_PAGER_DETAILS) throw bad(`details are longer than ${MAX_PAGER_DETAILS} characters`);
}
