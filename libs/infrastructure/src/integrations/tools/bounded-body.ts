/** Bounded reading of an answer and bounded JSON text: what every tool adapter needs to stay within ToolLimits.maxBytes. */

/**
 * Reads a body (a fetch body or a Node response: both iterate as byte chunks) and stops at `maxBytes`:
 * leaving the loop early cancels the stream, so the rest is never downloaded.
 */
export async function readCapped(stream: AsyncIterable<Uint8Array> | null, maxBytes: number): Promise<{ bytes: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  if (stream === null) return { bytes: Buffer.alloc(0), truncated: false };
  let size = 0;
  for await (const chunk of stream) {
    const room = maxBytes - size;
    if (chunk.byteLength > room) {
      if (room > 0) chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, room));
      return { bytes: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    size += chunk.byteLength;
  }
  return { bytes: Buffer.concat(chunks), truncated: false };
}

/** UTF-8 bytes of a value's JSON text. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

/**
 * The longest prefix of `text` whose JSON string literal (quotes and escapes included) fits in `budget`
 * bytes. One pass over the text; a surrogate pair is never split.
 */
export function cutToJsonBytes(text: string, budget: number): string {
  let used = 2; // the quotes
  let end = 0;
  for (const ch of text) {
    const cost = Buffer.byteLength(JSON.stringify(ch), 'utf8') - 2;
    if (used + cost > budget) break;
    used += cost;
    end += ch.length;
  }
  return text.slice(0, end);
}

/**
 * `text` with every occurrence of a secret replaced by `[redacted]`; a text cut short also loses a
 * trailing start of a secret (4 characters or more). Linear in the text per secret.
 */
export function redact(text: string, secrets: readonly string[], cutShort = false): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join('[redacted]');
  if (cutShort) {
    for (const secret of secrets) {
      for (let k = Math.min(secret.length - 1, out.length); k >= 4; k--) {
        if (out.endsWith(secret.slice(0, k))) {
          out = out.slice(0, out.length - k);
          break;
        }
      }
    }
  }
  return out;
}
