export interface BackoffOptions {
  /** Delay before the first retry. */
  initialMs: number;
  /** Cap: retries go on forever, never further apart than this. */
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 200, maxMs: 30_000 };

/**
 * Exponential backoff with "equal jitter": the delay doubles per attempt up to the cap, and a random
 * half of it is spread out so that processes failing together do not retry together.
 */
export function backoffDelay(attempt: number, options: BackoffOptions, random: () => number = Math.random): number {
  const ceiling = Math.min(options.maxMs, options.initialMs * 2 ** Math.min(Math.max(attempt - 1, 0), 30));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** What a log line or a status may say about an error: its kind and message, no credentials, bounded. */
export function describeError(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  // Connection strings in driver messages may carry `user:password@`.
  const scrubbed = text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/@]*@/gi, '$1***@');
  return scrubbed.length > 300 ? `${scrubbed.slice(0, 300)}…` : scrubbed;
}

export interface RetryNotice {
  attempt: number;
  delayMs: number;
  error: unknown;
}

/**
 * Runs `body` again and again until stopped: whenever it throws or returns while not stopping, waits
 * a backoff delay and runs it again, forever. `succeeded()` (called on progress) starts the backoff
 * over. The body is expected to clean up after itself (close its subscription) before it settles.
 */
export class SupervisedLoop {
  private stopping = true;
  private running: Promise<void> | null = null;
  private attempt = 0;
  private wake: (() => void) | null = null;

  constructor(
    private readonly options: {
      body: () => Promise<void>;
      /** Makes a running body return soon (closes its subscription); called by stop(). */
      interrupt: () => Promise<void>;
      onRetry: (notice: RetryNotice) => void;
      backoff?: BackoffOptions;
    },
  ) {}

  get stopped(): boolean {
    return this.stopping;
  }

  start(): void {
    if (this.running) return;
    this.stopping = false;
    this.attempt = 0;
    this.running = this.loop();
  }

  /** Stops after the body's current step; resolves once the body has settled. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.options.interrupt();
    await this.running;
    this.running = null;
  }

  succeeded(): void {
    this.attempt = 0;
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      let failure: unknown;
      try {
        await this.options.body();
        if (this.stopping) break;
        failure = new Error('the subscription ended unexpectedly');
      } catch (error) {
        if (this.stopping) break;
        failure = error;
      }
      this.attempt += 1;
      const delayMs = backoffDelay(this.attempt, this.options.backoff ?? DEFAULT_BACKOFF);
      this.options.onRetry({ attempt: this.attempt, delayMs, error: failure });
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delayMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }
}
