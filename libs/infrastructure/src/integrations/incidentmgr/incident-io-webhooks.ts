/**
 * incident.io's webhooks (https://docs.incident.io/api-reference/webhooks), sent through Svix: headers
 * `webhook-id`, `webhook-timestamp` (seconds) and `webhook-signature` (space-separated `v1,<base64>`
 * entries, several during a secret rotation), each an HMAC-SHA256 of `{id}.{timestamp}.{raw body}`
 * under the endpoint's signing secret (`whsec_` + base64 of the key;
 * https://docs.svix.com/receiving/verifying-payloads/how-manual). A timestamp further than five
 * minutes from now is refused, so a captured delivery cannot be replayed later. Payloads are
 * `{event_type, <event_type>: {...incident}}`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncidentEvent, IncidentWebhookCheck } from './incidentmgr.port';

export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';
export const WEBHOOK_TOLERANCE_SECONDS = 300;
/** More signatures than this in one header are not checked (a rotation sends two). */
const MAX_SIGNATURES = 8;

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

/** The `v1,<base64>` signature of a delivery. */
export function incidentIoSignature(secret: string, id: string, timestamp: string, body: string | Buffer): string {
  return `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.`).update(body).digest('base64')}`;
}

export function verifyIncidentIoWebhook(input: {
  secret: string;
  headers: Record<string, string | undefined>;
  body: string | Buffer;
  nowMs: number;
}): IncidentWebhookCheck {
  const id = input.headers[WEBHOOK_ID_HEADER];
  const timestamp = input.headers[WEBHOOK_TIMESTAMP_HEADER];
  const signatures = input.headers[WEBHOOK_SIGNATURE_HEADER];
  if (!id || !timestamp || !signatures) return 'missing';
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(input.nowMs / 1000 - Number(timestamp)) > WEBHOOK_TOLERANCE_SECONDS) return 'stale';
  const expected = Buffer.from(incidentIoSignature(input.secret, id, timestamp, input.body), 'utf8');
  const ok = signatures
    .split(' ')
    .slice(0, MAX_SIGNATURES)
    .some((candidate) => {
      const given = Buffer.from(candidate, 'utf8');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
  return ok ? 'ok' : 'mismatch';
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** A verified delivery's event. */
export function parseIncidentIoWebhook(headers: Record<string, string | undefined>, body: Record<string, unknown>): IncidentEvent {
  const type = str(body.event_type).slice(0, 100);
  const raw = obj(body[type]);
  return {
    delivery: (headers[WEBHOOK_ID_HEADER] ?? '').slice(0, 100),
    type,
    ...(str(raw.id) === ''
      ? {}
      : {
          incident: {
            id: str(raw.id).slice(0, 64),
            reference: str(raw.reference).slice(0, 64),
            name: str(raw.name).slice(0, 512),
            url: str(raw.permalink).slice(0, 2048),
            status: str(obj(raw.incident_status).category).slice(0, 64),
          },
        }),
  };
}
