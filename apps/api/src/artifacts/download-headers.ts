/**
 * The headers of an artifact download. The bytes are whatever a tenant uploaded, served from the
 * api's own origin, so a browser must never run or sniff them: `nosniff`, a sandboxing CSP, and
 * `attachment` unless the type is one a browser only displays (plain text, common raster images,
 * PDF; never HTML, SVG or XML, which can carry script).
 */
import type { Doc } from '@svc/infrastructure/read-store/read-store.port';

const INLINE_TYPES = new Set(['text/plain', 'image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf', 'application/json']);

/** The blob key an artifact's bytes are stored under: its upload's key, or its sha256 when imported before uploads were held per organization. */
export function blobKeyOf(doc: Doc): string {
  return typeof doc._blob === 'string' ? doc._blob : String(doc.sha256);
}

export function downloadHeaders(doc: Doc, name: string): Record<string, string> {
  const contentType = String(doc.contentType);
  const essence = contentType.split(';')[0].trim().toLowerCase();
  const filename = name.slice(name.lastIndexOf('/') + 1);
  const headers: Record<string, string> = {
    'content-type': contentType,
    'content-length': String(doc.sizeBytes),
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; sandbox",
    // RFC 6266 with RFC 8187's filename*: names are [A-Za-z0-9._-] (seed.ts), so both forms are exact.
    'content-disposition': `${INLINE_TYPES.has(essence) ? 'inline' : 'attachment'}; filename="${filename}"; filename*=UTF-8''${encodeURIComponent(filename)}`,
  };
  if (typeof doc.contentEncoding === 'string' && doc.contentEncoding !== '') headers['content-encoding'] = doc.contentEncoding;
  return headers;
}
