import { createHash } from 'node:crypto';

/**
 * AIP-154 etag of a resource: a hash of its content (every field but `etag`, keys in a canonical
 * order), so the same resource read from the aggregate, the read model or a revision snapshot has
 * the same etag, and any change (updateTime moves with every one) gives a new one.
 */
export function contentEtag(resource: Record<string, unknown>): string {
  const { etag: _ignored, ...content } = resource;
  return createHash('sha256').update(canonicalJson(content)).digest('base64url').slice(0, 22);
}

export function withEtag<T extends Record<string, unknown>>(resource: T): T & { etag: string } {
  return { ...resource, etag: contentEtag(resource) };
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
