/**
 * Chat platform request signatures (Slack's scheme): `v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{body}`
 * under the connection's signing secret, sent as `X-Slack-Signature` with `X-Slack-Request-Timestamp`.
 * A timestamp further than the tolerance from now is refused, so a captured delivery cannot be replayed
 * later; the comparison is constant-time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-slack-signature';
export const TIMESTAMP_HEADER = 'x-slack-request-timestamp';
/** Largest distance between the request's timestamp and now (Slack's recommendation; docs/operations.md, "Limits"). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** The signature a signing secret gives a body at a timestamp. */
export function chatSignature(signingSecret: string, timestamp: string, body: string | Buffer): string {
  return `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:`).update(body).digest('hex')}`;
}

export type SignatureCheck = 'ok' | 'missing' | 'stale' | 'mismatch';

/** Checks the headers of one delivery against one signing secret. */
export function checkChatSignature(input: {
  signingSecret: string;
  timestamp: string | undefined;
  signature: string | undefined;
  body: string | Buffer;
  nowMs: number;
  toleranceSeconds?: number;
}): SignatureCheck {
  const { timestamp, signature } = input;
  if (!timestamp || !signature) return 'missing';
  if (!/^\d{1,12}$/.test(timestamp)) return 'stale';
  if (Math.abs(input.nowMs / 1000 - Number(timestamp)) > (input.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS)) return 'stale';
  const expected = Buffer.from(chatSignature(input.signingSecret, timestamp, input.body), 'utf8');
  const presented = Buffer.from(signature, 'utf8');
  return presented.length === expected.length && timingSafeEqual(presented, expected) ? 'ok' : 'mismatch';
}
