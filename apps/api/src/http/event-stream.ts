import { PassThrough } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { sseSubscribers } from '@svc/infrastructure/observability/metrics';

/**
 * A `text/event-stream` answer (WHATWG server-sent events). A method returns one from its handler once
 * everything that can fail has been checked, so errors before it keep the JSON error shape; the
 * controllers hand its body to Fastify, which pipes it with backpressure and destroys it when the
 * client goes away.
 *
 * Never buffered without bound: when what the client has not read passes `maxBufferBytes`, the
 * stream is destroyed (the subscriber cannot keep up) instead of growing.
 */
export class EventStream {
  readonly body = new PassThrough();
  private ended = false;

  constructor(private readonly maxBufferBytes: number) {
    sseSubscribers.inc();
    this.body.once('close', () => sseSubscribers.dec());
    this.body.on('close', () => (this.ended = true));
    // A write after the client left is dropped, not thrown.
    this.body.on('error', () => (this.ended = true));
  }

  get closed(): boolean {
    return this.ended || this.body.destroyed;
  }

  /** Bytes written and not yet taken by the socket. */
  get buffered(): number {
    return this.body.writableLength + this.body.readableLength;
  }

  onClose(listener: () => void): void {
    if (this.closed) queueMicrotask(listener);
    else this.body.once('close', listener);
  }

  /** One event: `id` (optional: an event without one keeps the client's last id), `data` as one JSON line. */
  event(data: unknown, id?: string): boolean {
    return this.write(`${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`);
  }

  /** Sets the client's last event id without dispatching an event (an id field and no data). */
  id(id: string): boolean {
    return this.write(`id: ${id}\n\n`);
  }

  comment(text: string): boolean {
    return this.write(`: ${text}\n\n`);
  }

  retry(ms: number): boolean {
    return this.write(`retry: ${ms}\n\n`);
  }

  /** Resolves once the client has taken what is buffered (or the stream closed). */
  drained(): Promise<void> {
    if (this.closed || !this.body.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.body.off('drain', done);
        this.body.off('close', done);
        resolve();
      };
      this.body.on('drain', done);
      this.body.on('close', done);
    });
  }

  end(): void {
    if (!this.closed) this.body.end();
  }

  /** Disconnects at once (the client gets a truncated stream and reconnects). */
  destroy(): void {
    this.body.destroy();
  }

  private write(frame: string): boolean {
    if (this.closed) return false;
    this.body.write(frame);
    if (this.buffered > this.maxBufferBytes) {
      this.destroy();
      return false;
    }
    return true;
  }
}

/** The headers of an event stream: no caching, no proxy buffering (nginx honours X-Accel-Buffering). */
export const EVENT_STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
} as const;

/** What a controller sends for a method's result: an event stream's body with its headers, else the result. */
export function answer(reply: FastifyReply, result: unknown): unknown {
  if (!(result instanceof EventStream)) return result;
  void reply.headers(EVENT_STREAM_HEADERS);
  return result.body;
}
