/**
 * incident.io as the incident manager, over its REST API with a bearer API key
 * (https://docs.incident.io/api-reference/introduction). incident.io publishes no official Node client,
 * so this is plain fetch (docs/decisions.md). Calls:
 * - `POST /v2/incidents` (https://docs.incident.io/api-reference/incidents-v2/create): `idempotency_key`
 *   and `visibility` required; answers `{incident}`;
 * - `GET /v2/incidents/{id}` (https://docs.incident.io/api-reference/incidents-v2/show): `{incident}`.
 * Errors are `{type, status, request_id, errors: [{code, message, source: {field}}]}`; a spent rate limit
 * (1,200 requests a minute per key) is 429 with `rate_limit.retry_after`.
 */
import { callJson, object, scrub, text, VendorError, vendorStatusError } from '../vendor';
import { MAX_IDEMPOTENCY_KEY, MAX_INCIDENT_NAME, MAX_INCIDENT_SUMMARY, type IncidentManager, type ManagedIncident, type NewIncident } from './incidentmgr.port';

export const INCIDENT_IO_API_URL = 'https://api.incident.io';

export interface IncidentIoOptions {
  connection: string;
  apiKey: string;
  apiUrl?: string;
  /** `public` (default) or `private`: who can see incidents this connection declares. */
  visibility?: 'public' | 'private';
  /** The severity of incidents declared without one. */
  defaultSeverityId?: string;
  timeoutMs?: number;
}

/** incident.io IDs are ULIDs; anything else never reaches the URL path. */
const INCIDENT_ID = /^[A-Za-z0-9_-]{1,64}$/;

export class IncidentIoManager implements IncidentManager {
  private readonly subject: string;

  constructor(private readonly options: IncidentIoOptions) {
    this.subject = `incident.io (${options.connection})`;
  }

  async createIncident(incident: NewIncident): Promise<ManagedIncident> {
    check(incident);
    const severityId = incident.severityId ?? this.options.defaultSeverityId;
    const body = await this.call('POST', '/v2/incidents', {
      idempotency_key: incident.idempotencyKey,
      visibility: this.options.visibility ?? 'public',
      name: incident.name,
      ...(incident.summary ? { summary: incident.summary } : {}),
      ...(severityId ? { severity_id: severityId } : {}),
      mode: 'standard',
    });
    return incidentOf(object(body, 'incident'));
  }

  async getIncident(id: string): Promise<ManagedIncident> {
    if (!INCIDENT_ID.test(id)) throw new VendorError('INVALID_ARGUMENT', `'${id.slice(0, 64)}' is not an incident.io incident ID`);
    return incidentOf(object(await this.call('GET', `/v2/incidents/${id}`), 'incident'));
  }

  private async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const answer = await callJson(this.subject, `${this.options.apiUrl ?? INCIDENT_IO_API_URL}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.options.apiKey}` },
      body,
      timeoutMs: this.options.timeoutMs ?? 10_000,
    });
    if (answer.status >= 200 && answer.status < 300) return answer.body;
    const errors = (answer.body as { errors?: unknown } | undefined)?.errors;
    const detail = Array.isArray(errors)
      ? errors.map((e) => [text(object(e, 'source'), 'field'), text(e, 'message')].filter(Boolean).join(': ')).join('; ')
      : '';
    const retry = answer.status === 429 ? text(object(answer.body, 'rate_limit'), 'retry_after') : '';
    throw vendorStatusError(this.subject, answer.status, scrub([detail, retry && `retry after ${retry}`].filter(Boolean).join('; '), [this.options.apiKey]), [this.options.apiKey]);
  }
}

function incidentOf(raw: Record<string, unknown>): ManagedIncident {
  return {
    id: text(raw, 'id'),
    reference: text(raw, 'reference'),
    name: text(raw, 'name'),
    summary: text(raw, 'summary'),
    url: text(raw, 'permalink'),
    status: text(object(raw, 'incident_status'), 'category'),
    severity: text(object(raw, 'severity'), 'name'),
    createTime: text(raw, 'created_at'),
  };
}

function check(incident: NewIncident): void {
  const bad = (why: string) => new VendorError('INVALID_ARGUMENT', why);
  if (typeof incident.name !== 'string' || incident.name.trim() === '') throw bad('an incident needs a name');
  if (incident.name.length > MAX_INCIDENT_NAME) throw bad(`the name is longer than ${MAX_INCIDENT_NAME} characters`);
  if (incident.summary !== undefined && incident.summary.length > MAX_INCIDENT_SUMMARY) throw bad(`the summary is longer than ${MAX_INCIDENT_SUMMARY} characters`);
  if (incident.idempotencyKey === '' || incident.idempotencyKey.length > MAX_IDEMPOTENCY_KEY) throw bad(`the idempotency key must be 1 to ${MAX_IDEMPOTENCY_KEY} characters`);
}
