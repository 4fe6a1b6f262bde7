/**
 * A local stand-in for PagerDuty's Events API v2, answering as its reference documents
 * (https://developer.pagerduty.com/docs/events-api-v2-overview, "API Response Codes & Retry Logic", and
 * the OpenAPI document https://raw.githubusercontent.com/PagerDuty/api-schema/main/reference/events-v2/openapiv3.json):
 * - POST /v2/enqueue: 202 `{status: "success", message: "Event processed", dedup_key}` (a dedup_key is
 *   generated when the event has none; the same dedup_key keeps one open alert);
 * - a body that is not JSON: 400 `{status: "Unrecognized object", message: "Event object format is unrecognized", errors: ["JSON parse error"]}`
 *   (the reference's example error);
 * - an invalid event: 400 `{status: "invalid event", message: "Event object is invalid", errors: [...]}`
 *   (a routing key that is not 32 characters, a missing `payload.summary`/`source`, a severity outside
 *   critical/error/warning/info); a routing key no integration has is refused the same way
 *   (`Invalid routing key`: PagerDuty's wording is not in the reference, the status is);
 * - `throttle = true`: 429 with no body ("Too many API calls at a time", no body documented).
 */
import { randomBytes } from 'node:crypto';
import { FakeServer, jsonOf, type Answer, type RecordedRequest } from './fake-server';

const INVALID = (errors: string[]): Answer => ({ status: 400, body: { status: 'invalid event', message: 'Event object is invalid', errors } });

export class FakePagerDuty extends FakeServer {
  /** Alerts open, by dedup_key. */
  readonly alerts = new Map<string, Record<string, unknown>>();
  throttle = false;

  constructor(private readonly routingKeys: readonly string[]) {
    super();
  }

  protected answer(request: RecordedRequest): Answer {
    if (request.method !== 'POST' || request.path !== '/v2/enqueue') return { status: 404, body: { status: 'Not Found', message: 'Not Found' } };
    if (this.throttle) return { status: 429 };
    const event = jsonOf(request);
    if (!event) return { status: 400, body: { status: 'Unrecognized object', message: 'Event object format is unrecognized', errors: ['JSON parse error'] } };
    const key = event.routing_key;
    if (typeof key !== 'string' || key.length !== 32) return INVALID(["Length of 'routing_key' is incorrect (should be 32 characters)"]);
    if (!this.routingKeys.includes(key)) return INVALID(['Invalid routing key']);
    if (!['trigger', 'acknowledge', 'resolve'].includes(String(event.event_action))) return INVALID(["'event_action' is invalid (must be one of the following: 'trigger', 'acknowledge' or 'resolve')"]);
    const payload = (event.payload ?? {}) as Record<string, unknown>;
    const errors: string[] = [];
    if (typeof payload.summary !== 'string' || payload.summary.trim() === '') errors.push("'payload.summary' is missing or blank");
    if (typeof payload.source !== 'string' || payload.source.trim() === '') errors.push("'payload.source' is missing or blank");
    if (!['critical', 'error', 'warning', 'info'].includes(String(payload.severity))) errors.push("'payload.severity' is invalid (must be one of the following: 'critical', 'warning', 'error' or 'info')");
    if (errors.length > 0) return INVALID(errors);
    const dedupKey = typeof event.dedup_key === 'string' && event.dedup_key !== '' ? event.dedup_key : randomBytes(16).toString('hex');
    if (!this.alerts.has(dedupKey)) this.alerts.set(dedupKey, event);
    return { status: 202, body: { status: 'success', message: 'Event processed', dedup_key: dedupKey } };
  }
}
