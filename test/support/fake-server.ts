/** A local HTTP server for the fake vendor APIs: reads each request whole, records it, answers JSON. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export abstract class FakeServer {
  private server?: Server;
  /** Every request seen, in order. */
  readonly requests: RecordedRequest[] = [];
  url = '';

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.receive(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  protected abstract answer(request: RecordedRequest, url: URL): Answer | Promise<Answer>;

  private async receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://localhost');
    const request: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
    this.requests.push(request);
    let answer: Answer;
    try {
      answer = await this.answer(request, url);
    } catch (error) {
      answer = { status: 500, body: { message: (error as Error).message } };
    }
    res.writeHead(answer.status, { ...(answer.body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' }), ...answer.headers });
    res.end(answer.body === undefined ? undefined : JSON.stringify(answer.body));
  }
}

/** The request's JSON body, or undefined when it is not JSON. */
export function jsonOf(request: RecordedRequest): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(request.body);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
