/** Artifact uploads for the e2e tests: bytes made lazily from one piece, sent with backpressure. */
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import type { Credentials } from './harness';

export interface Upload {
  status: number;
  body: Record<string, unknown>;
}

/** `size` bytes repeating `piece`, as an async generator, and their sha256 (computed the same way). */
export function repeated(piece: Buffer, size: number): { sha256: string; chunks: () => AsyncGenerator<Buffer> } {
  async function* chunks() {
    for (let at = 0; at < size; at += piece.length) yield piece.subarray(0, Math.min(piece.length, size - at));
  }
  const hash = createHash('sha256');
  for (let at = 0; at < size; at += piece.length) hash.update(piece.subarray(0, Math.min(piece.length, size - at)));
  return { sha256: hash.digest('hex'), chunks };
}

export function sha256Of(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * `PUT /v1/artifacts/{sha256}`. With `contentLength` the length is declared, otherwise the body is
 * chunked. A server that answers before reading everything ends the exchange; its answer still counts.
 */
export function upload(
  baseUrl: string,
  sha256: string,
  body: AsyncIterable<Buffer> | Buffer,
  options: { as: Credentials | null; contentType?: string | null; contentLength?: number },
): Promise<Upload> {
  const headers: Record<string, string> = {};
  if (options.as) headers.authorization = `Basic ${Buffer.from(`${options.as.username}:${options.as.password}`).toString('base64')}`;
  if (options.contentType !== null) headers['content-type'] = options.contentType ?? 'application/octet-stream';
  if (options.contentLength !== undefined) headers['content-length'] = String(options.contentLength);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(`${baseUrl}/v1/artifacts/${sha256}`, { method: 'PUT', headers }, (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString();
        resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} });
      });
      res.on('error', reject);
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    void (async () => {
      try {
        if (Buffer.isBuffer(body)) req.write(body);
        else {
          for await (const chunk of body) {
            if (answered || req.destroyed) break;
            if (!req.write(chunk)) await new Promise((r) => req.once('drain', r));
          }
        }
        req.end();
      } catch (error) {
        if (!answered) reject(error as Error);
      }
    })();
  });
}
