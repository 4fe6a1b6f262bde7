import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { StreamableFile } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DomainError } from '@svc/domain/shared/domain-error';
import { sseSlowConsumers, sseSubscribers } from '@svc/infrastructure/observability/metrics';
import { errorBody } from './errors';

/** How long an ended stream's last event may wait for its client to read it before the connection is cut. */
export const END_GRACE_MS = 10_000;

/**
 * The bytes every event stream of this process holds unsent, against one budget (both kinds of
 * stream share it). Each stream accounts for itself when it writes, drains or closes, so the total
 * may lag what sockets took meanwhile (it errs high, never low).
 */
export class StreamBudget {
  held = 0;

  constructor(readonly maxBytes: number) {}

  get exhausted(): boolean {
    return this.held >= this.maxBytes;
  }
}

export interface EventStreamOptions {
  /** Bytes this stream may hold unsent before its subscriber is ended as a slow consumer. */
  maxBufferBytes: number;
  budget: StreamBudget;
  /** The Any type host of the error the stream ends with. */
  typeHost: string;
}

/** Which bound a slow consumer passed (the `limit` of its last event and of svc_sse_slow_consumers_total). */
export type SlowConsumerLimit = 'stream' | 'process' | 'catch_up';

const SLOW_MESSAGES: Record<SlowConsumerLimit, string> = {
  stream: 'the stream was ended: the client fell behind and its unread data passed this stream\'s buffer limit; reconnect with Last-Event-ID to resume',
  process: 'the stream was ended: the client fell behind while the server\'s stream buffers were full; reconnect with Last-Event-ID to resume',
  catch_up: 'the stream was ended: too many live events arrived while it caught up from Last-Event-ID; reconnect with the last id received to resume',
};

const EMPTY = Buffer.alloc(0);

/** `data: <json>\n\n`, as one buffer that any number of streams may write (serialized once). */
export function dataFrame(value: unknown): Buffer {
  return Buffer.from(`data: ${JSON.stringify(value)}\n\n`);
}

/**
 * The data frame of each source object, built the first time a stream writes it: a notification
 * fanned out to N streams is serialized once, and the N streams queue the same bytes.
 */
export class FrameCache<T extends object> {
  private readonly frames = new WeakMap<T, Buffer>();

  constructor(private readonly wire: (source: T) => unknown) {}

  frame(source: T): Buffer {
    let frame = this.frames.get(source);
    if (!frame) this.frames.set(source, (frame = dataFrame(this.wire(source))));
    return frame;
  }
}

/**
 * A `text/event-stream` answer (WHATWG server-sent events). A method returns one from its handler once
 * everything that can fail has been checked, so errors before it keep the JSON error shape; the
 * controllers hand its body to Fastify, which pipes it to the response with backpressure and destroys
 * it when the client goes away.
 *
 * Never buffered without bound. Frames wait in the stream's own queue and move to the response only
 * as the socket takes them; what is held (the queue, the body's buffer, the response's) is counted
 * against `maxBufferBytes` and the process's StreamBudget. A frame that would pass either while the
 * client is behind ends the stream instead: the queue is dropped, the client gets what the socket
 * already has, then an `event: error` naming the reason (RESOURCE_EXHAUSTED, SLOW_CONSUMER), then
 * the end. It resumes with the last id it received.
 */
export class EventStream {
  readonly body: Readable;
  private queue: Buffer[] = [];
  private head = 0;
  private queued = 0;
  /** The body asked for more (its `read`) and has not been given it. */
  private wanted = false;
  private raw: ServerResponse | undefined;
  private socket: Socket | null = null;
  /** Ended as a slow consumer: the connection closes after the last event, not kept alive. */
  private slow = false;
  private state: 'open' | 'ending' | 'closed' = 'open';
  /** What this stream last added to the budget. */
  private accounted = 0;
  private waiters: (() => void)[] = [];
  private grace: NodeJS.Timeout | undefined;
  private eof = false;

  constructor(private readonly options: EventStreamOptions) {
    this.body = new Readable({
      read: () => {
        this.wanted = true;
        this.pump();
      },
    });
    // Counted from here to the body's close, which every path reaches (end, destroy, client gone).
    sseSubscribers.inc();
    this.body.once('close', () => {
      this.state = 'closed';
      sseSubscribers.dec();
      this.queue = [];
      this.head = 0;
      this.queued = 0;
      this.settle();
    });
    // A client that leaves destroys the body without an error; nothing else errors it.
    this.body.on('error', () => undefined);
  }

  get closed(): boolean {
    return this.state !== 'open';
  }

  /** Bytes held and not yet taken by the socket: queued, in the body, in the response. */
  get buffered(): number {
    if (this.state === 'closed') return 0;
    return this.queued + this.body.readableLength + (this.raw?.writableLength ?? 0);
  }

  /** The response the body is piped to: its buffer counts, its drain moves the queue, its close ends the stream. */
  attach(raw: ServerResponse): void {
    this.raw = raw;
    raw.on('drain', () => this.settle());
    raw.once('close', () => this.body.destroy());
    // After a slow consumer's last event the connection closes (FIN once the socket has sent it all).
    // The socket is taken now: the server detaches it from the response before 'finish' listeners run.
    this.socket = raw.socket;
    raw.once('finish', () => {
      if (this.slow) this.socket?.end();
    });
    if (raw.destroyed) this.body.destroy();
  }

  onClose(listener: () => void): void {
    if (this.state === 'closed') queueMicrotask(listener);
    else this.body.once('close', listener);
  }

  /** One event: `data` (a dataFrame, shared between streams) with an optional `id` (else the client keeps its last id). */
  send(data: Buffer, id?: string): boolean {
    return id === undefined ? this.write([data]) : this.write([Buffer.from(`id: ${id}\n`), data]);
  }

  /** One event with `value` as its data (serialized for this stream alone). */
  event(value: unknown, id?: string): boolean {
    return this.send(dataFrame(value), id);
  }

  /** Sets the client's last event id without dispatching an event (an id field and no data). */
  id(id: string): boolean {
    return this.write([Buffer.from(`id: ${id}\n\n`)]);
  }

  comment(text: string): boolean {
    return this.write([Buffer.from(`: ${text}\n\n`)]);
  }

  /** Resolves once the client has taken what is queued (or the stream closed): a replay writes a page, then waits. */
  drained(): Promise<void> {
    if (this.isDrained()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** A clean end once the client has read what is queued. */
  end(): void {
    if (this.state !== 'open') return;
    this.state = 'ending';
    this.pump();
  }

  /**
   * Ends a subscriber that cannot keep up: drops what is queued, sends the reason as the last event,
   * ends; cuts the connection if the client has not read that within END_GRACE_MS.
   */
  endSlow(limit: SlowConsumerLimit): void {
    if (this.state !== 'open') return;
    sseSlowConsumers.inc({ limit });
    this.queue = [];
    this.head = 0;
    this.queued = 0;
    const error = new DomainError('RESOURCE_EXHAUSTED', SLOW_MESSAGES[limit], 'SLOW_CONSUMER', { limit });
    // Bypasses the bounds: it replaces a whole queue, and is the last frame.
    this.queue.push(Buffer.from(`event: error\n`), dataFrame(errorBody(error, this.options.typeHost)));
    this.queued = this.queue[0].length + this.queue[1].length;
    this.state = 'ending';
    this.slow = true;
    // Not cleared when the client reads it all: by then the socket is closing and cutting it is a no-op.
    this.grace = setTimeout(() => this.destroy(), END_GRACE_MS).unref();
    this.pump();
  }

  /** Disconnects at once (the client gets a truncated stream and reconnects). */
  destroy(): void {
    clearTimeout(this.grace);
    // The response or its socket may hold the last frames of a client that does not read: cut them too
    // (not a kept-alive socket whose response ended cleanly: it may carry the client's next request).
    if (this.state !== 'closed' || this.slow) this.socket?.destroy();
    this.body.destroy();
  }

  private write(chunks: Buffer[]): boolean {
    if (this.state !== 'open') return false;
    const size = chunks.reduce((total, c) => total + c.length, 0);
    this.account();
    const own = this.buffered;
    // A client that has taken everything may always get the next frame, however large.
    if (own > 0 && own + size > this.options.maxBufferBytes) {
      this.endSlow('stream');
      return false;
    }
    if (own > 0 && this.options.budget.held + size > this.options.budget.maxBytes) {
      this.endSlow('process');
      return false;
    }
    for (const chunk of chunks) this.queue.push(chunk);
    this.queued += size;
    this.pump();
    return true;
  }

  /** Moves queued frames into the body as far as it asks for them; the body's end follows the last one when ending. */
  private pump(): void {
    while (this.wanted && this.head < this.queue.length) {
      const chunk = this.queue[this.head];
      this.queue[this.head++] = EMPTY;
      this.queued -= chunk.length;
      this.wanted = this.body.push(chunk);
    }
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
      if (this.state === 'ending' && !this.eof) {
        this.eof = true;
        this.body.push(null);
      }
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      // Compacted when half is spent: each frame is moved a bounded number of times.
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    this.settle();
  }

  private isDrained(): boolean {
    return this.state === 'closed' || (this.queued === 0 && this.raw?.writableNeedDrain !== true);
  }

  private settle(): void {
    this.account();
    if (this.waiters.length > 0 && this.isDrained()) for (const resolve of this.waiters.splice(0)) resolve();
  }

  private account(): void {
    const now = this.buffered;
    this.options.budget.held += now - this.accounted;
    this.accounted = now;
  }
}

/** The headers of an event stream: no caching, no proxy buffering (nginx honours X-Accel-Buffering). */
export const EVENT_STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
} as const;

/**
 * What a controller sends for a method's result: an event stream's body with its headers, else the
 * result. The body goes out as a StreamableFile: Nest 12 reads any other async iterable it is handed
 * into a copy of its own, whose buffer this stream's accounting would not see; a StreamableFile's
 * stream is given to Fastify as it is, piped to the response with backpressure.
 */
export function answer(reply: FastifyReply, result: unknown): unknown {
  if (!(result instanceof EventStream)) return result;
  result.attach(reply.raw);
  void reply.headers(EVENT_STREAM_HEADERS);
  // Errors of the body are the stream's own to report (an `event: error`); the file logs nothing.
  return new StreamableFile(result.body).setErrorLogger(() => undefined);
}
