/**
 * PagerDuty v3 webhook signatures (https://developer.pagerduty.com/docs/webhooks/webhook-signatures,
 * source: github.com/PagerDuty/developer-docs docs/webhooks/04-Signatures.md): `X-PagerDuty-Signature`
 * holds one or more comma-separated `v1=<hex HMAC-SHA256 of the raw body, keyed by the signing
 * secret>`, several while PagerDuty rotates its secret; one match is enough. Compared in constant
 * time; the header is bounded before any HMAC is computed.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const PAGER_SIGNATURE_HEADER = 'x-pagerduty-signature';
/** Longest header read, and most signatures compared (PagerDuty sends one or two). */
const MAX_HEADER_LENGTH = 2048;
const MAX_SIGNATURES = 8;
const V1 = /^v1=([0-9a-f]{64})$/i;

export type PagerSignatureCheck = 'ok' | 'missing' | 'mismatch';

/** The v1 signature of `body` under `secret` (what PagerDuty sends), for tests and fixtures. */
export function pagerSignature(secret: string, body: string | Buffer): string {
  return `v1=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Whether one of the header's v1 signatures is the body's under one of `secrets` (the signing secrets the connection holds). */
export function checkPagerSignature(input: { secrets: readonly string[]; header: string | undefined; body: string | Buffer }): PagerSignatureCheck {
  const header = input.header ?? '';
  if (header === '' || header.length > MAX_HEADER_LENGTH) return 'missing';
  const given = header
    .split(',', MAX_SIGNATURES)
    .map((part) => V1.exec(part.trim())?.[1])
    .filter((hex): hex is string => hex !== undefined)
    .map((hex) => Buffer.from(hex.toLowerCase(), 'hex'));
  if (given.length === 0) return 'missing';
  for (const secret of input.secrets) {
    const expected = createHmac('sha256', secret).update(input.body).digest();
    if (given.some((signature) => signature.length === expected.length && timingSafeEqual(signature, expected))) return 'ok';
  }
  return 'mismatch';
}
