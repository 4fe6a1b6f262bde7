import type { LoggerService } from '@nestjs/common';
import { writeSync } from 'node:fs';
import pino, { type Logger } from 'pino';

/**
 * Paths pino blanks in every line: nothing logs a request's headers today, and if one ever did,
 * credentials, cookies and keys still never reach the log. Exact paths only: a wildcard (`*.secret`)
 * doubles the cost of every line (measured: 3 to 6 µs), and no line carries free-form objects.
 */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'headers.cookie',
  'headers["x-api-key"]',
  'res.headers["set-cookie"]',
];

/**
 * A process's structured logger (the api's and the projector's): JSON lines on stdout, written
 * asynchronously (the access log must not slow the request path), pretty-printed only for a person
 * at a terminal. `name` says which process wrote a line: `npm start` runs both on one stdout.
 */
export function createLogger(options: { name: string; level?: string; pretty?: boolean }): Logger {
  const level = options.level ?? process.env.SVC_LOG_LEVEL ?? 'info';
  const base = {
    level,
    name: options.name,
    redact: { paths: REDACT, censor: '[redacted]' },
    base: { pid: process.pid },
  };
  if (options.pretty ?? process.stdout.isTTY === true) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l' } } });
  }
  // A file descriptor write of its own per chunk, off the event loop (sonic-boom: asynchronous, retried on EAGAIN).
  const lines = new LineBatch(STDOUT, pino.destination({ dest: STDOUT, sync: false }));
  setInterval(() => lines.flush(), FLUSH_MS).unref();
  return pino(base, lines);
}

const STDOUT = 1;
/** The longest a log line waits in the batch when traffic is too light to fill it. */
const FLUSH_MS = 200;
/** Characters gathered before they go to the file descriptor: one write per ~50 access lines. */
const BATCH_CHARS = 16 * 1024;

type Sink = Pick<ReturnType<typeof pino.destination>, 'write' | 'flushSync'>;

/**
 * pino's destination: lines gather here and reach sonic-boom as one string per BATCH_CHARS (or every
 * FLUSH_MS). Why not sonic-boom's own `minLength`: per line it measures the UTF-8 length of its whole
 * pending buffer (a string it builds by concatenation, so also flattens it), and each asynchronous
 * write wakes a thread of the pool, which costs the event loop tens of µs on a virtual machine; at
 * 4 KiB per write both were about 3% of a CreateNote's time in the api (docs/performance.md).
 *
 * At exit the pending lines are written synchronously after whatever sonic-boom still holds (it
 * writes that out when the event loop empties, and synchronously at exit), so a line logged just
 * before `process.exit` (a fatal error, a stop) is not lost, nor one logged in the last turn.
 */
export class LineBatch {
  private lines: string[] = [];
  private chars = 0;

  constructor(
    private readonly fd: number,
    private readonly sink: Sink,
  ) {
    process.on('exit', () => this.flushSync());
  }

  write(line: string): void {
    this.lines.push(line);
    this.chars += line.length;
    if (this.chars >= BATCH_CHARS) this.flush();
  }

  flush(): void {
    const chunk = this.take();
    if (chunk) this.sink.write(chunk);
  }

  flushSync(): void {
    const chunk = this.take();
    try {
      this.sink.flushSync(); // what it holds is older than the batch
    } catch {
      // ended already (sonic-boom ends itself on beforeExit) or not open: the batch still goes out
    }
    if (chunk) writeFully(this.fd, chunk);
  }

  private take(): string {
    if (this.lines.length === 0) return '';
    const chunk = this.lines.length === 1 ? this.lines[0] : this.lines.join('');
    this.lines = [];
    this.chars = 0;
    return chunk;
  }
}

/** A synchronous write at exit; a full non-blocking pipe (EAGAIN) is retried a bounded number of times. */
function writeFully(fd: number, text: string): void {
  let rest = Buffer.from(text);
  for (let attempt = 0; rest.length > 0 && attempt < 1000; attempt++) {
    try {
      rest = rest.subarray(writeSync(fd, rest));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
    }
  }
}

/**
 * The same line `logger.info(fields, msg)` writes, for the access line of every request: one
 * JSON.stringify of a flat object instead of pino's serializers and redaction (about 1.5 against 6 µs
 * a line), for fields that are never a secret nor an object. Nothing is written when info is off.
 */
export function infoLineWriter(logger: Logger): (fields: Record<string, unknown>, msg: string) => void {
  const stream = (logger as unknown as Record<symbol, { write(line: string): void }>)[pino.symbols.streamSym];
  const bindings = logger.bindings();
  const pid = process.pid; // createLogger's base, which bindings() leaves out
  const level = logger.levels.values.info;
  return (fields, msg) => {
    if (!logger.isLevelEnabled('info')) return;
    stream.write(`${JSON.stringify({ level, time: Date.now(), pid, ...bindings, ...fields, msg })}\n`);
  };
}

/** Nest's wiring chatter (module and route registration) is noise for an operator; our lines are not. */
const WIRING = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

/** Nest's Logger calls, written by pino as JSON lines with their context. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    if (context && WIRING.has(context)) return;
    this.logger.info({ context }, String(message));
  }

  error(message: unknown, ...rest: unknown[]): void {
    const context = typeof rest[rest.length - 1] === 'string' ? (rest[rest.length - 1] as string) : undefined;
    const stack = rest.length > 1 && typeof rest[0] === 'string' ? rest[0] : undefined;
    this.logger.error({ context, ...(stack ? { stack } : {}) }, String(message));
  }

  warn(message: unknown, context?: string): void {
    this.logger.warn({ context }, String(message));
  }

  debug(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }

  verbose(message: unknown, context?: string): void {
    this.logger.trace({ context }, String(message));
  }
}
