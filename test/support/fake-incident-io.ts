/**
 * A local stand-in for incident.io's REST API, answering as its reference documents
 * (https://docs.incident.io/api-reference/introduction for authentication, errors and rate limits):
 * - POST /v2/incidents (https://docs.incident.io/api-reference/incidents-v2/create): `idempotency_key`
 *   and `visibility` required; the same `idempotency_key` answers the incident it created before;
 *   200 ("OK response") with `{incident: {id, reference, name, summary, permalink, visibility, mode,
 *   incident_status: {id, name, category}, severity: {id, name}, created_at, updated_at}}`;
 * - GET /v2/incidents/{id} (https://docs.incident.io/api-reference/incidents-v2/show): `{incident}`, or 404;
 * - errors `{type, status, request_id, errors: [{code, message, source?: {field}}]}`: 401
 *   `authentication_error` (`missing_authorization_material` without a key), 422 `validation_error`
 *   (`is_required` with `source.field`; the reference's example is the severity an organization may
 *   require: `requireSeverity`), 404 `not_found`;
 * - `rateLimited = true`: 429 `too_many_requests` with `rate_limit: {name, limit, remaining, retry_after}`.
 */
import { randomUUID } from 'node:crypto';
import { FakeServer, jsonOf, type Answer, type RecordedRequest } from './fake-server';

function failure(status: number, type: string, errors: Array<{ code: string; message: string; source?: { field: string } }>, extra: Record<string, unknown> = {}): Answer {
  return { status, body: { type, status, request_id: randomUUID(), ...extra, errors } };
}

export class FakeIncidentIo extends FakeServer {
  readonly incidents = new Map<string, Record<string, unknown>>();
  private readonly byKey = new Map<string, string>();
  rateLimited = false;
  requireSeverity = false;

  constructor(private readonly apiKey: string) {
    super();
  }

  protected answer(request: RecordedRequest): Answer {
    const auth = request.headers.authorization;
    if (auth === undefined) return failure(401, 'authentication_error', [{ code: 'missing_authorization_material', message: 'No authorization material provided in request' }]);
    if (auth !== `Bearer ${this.apiKey}`) return failure(401, 'authentication_error', [{ code: 'invalid_authorization', message: 'The API key provided is not valid' }]);
    if (this.rateLimited) {
      return failure(429, 'too_many_requests', [{ code: 'too_many_requests', message: 'Too many requests. We recommend exponential backoff.' }], {
        rate_limit: { name: 'api_key_name', limit: 1200, remaining: 0, retry_after: new Date(Date.now() + 60_000).toUTCString() },
      });
    }
    if (request.method === 'POST' && request.path === '/v2/incidents') return this.create(jsonOf(request) ?? {});
    const show = /^\/v2\/incidents\/([^/]+)$/.exec(request.path);
    if (request.method === 'GET' && show) {
      const incident = this.incidents.get(decodeURIComponent(show[1]));
      return incident ? { status: 200, body: { incident } } : failure(404, 'not_found', [{ code: 'not_found', message: 'Incident not found' }]);
    }
    return failure(404, 'not_found', [{ code: 'not_found', message: 'Not found' }]);
  }

  private create(input: Record<string, unknown>): Answer {
    const missing = (field: string, message: string) => failure(422, 'validation_error', [{ code: 'is_required', message, source: { field } }]);
    if (typeof input.idempotency_key !== 'string' || input.idempotency_key === '') return missing('idempotency_key', 'An idempotency key is required');
    if (input.visibility !== 'public' && input.visibility !== 'private') return missing('visibility', 'A visibility is required');
    if (this.requireSeverity && typeof input.severity_id !== 'string') return missing('severity_id', 'A severity is required to open an incident');
    const earlier = this.byKey.get(input.idempotency_key);
    if (earlier) return { status: 200, body: { incident: this.incidents.get(earlier) } };
    const number = this.incidents.size + 1;
    const id = `01HZ${String(number).padStart(22, '0')}`;
    const now = new Date().toISOString();
    const incident = {
      id,
      reference: `INC-${number}`,
      name: typeof input.name === 'string' ? input.name : `Incident ${number}`,
      summary: typeof input.summary === 'string' ? input.summary : '',
      permalink: `https://app.incident.io/acme/incidents/${number}`,
      visibility: input.visibility,
      mode: typeof input.mode === 'string' ? input.mode : 'standard',
      incident_status: { id: '01STATUS', name: 'Triage', category: 'triage' },
      severity: typeof input.severity_id === 'string' ? { id: input.severity_id, name: 'Major' } : undefined,
      created_at: now,
      updated_at: now,
    };
    this.incidents.set(id, incident);
    this.byKey.set(input.idempotency_key, id);
    return { status: 200, body: { incident } };
  }
}
