/**
 * A reactor driven by time rather than the log (cron triggers, the upload sweep): a tick every
 * `everyMs`; a tick that throws (a store fault) is tried again with backoff, and the next good tick
 * resets it. Ticks read their durable state from the stores, so a tick lost to a fault or a restart
 * loses nothing.
 */
import { backoffDelay, DEFAULT_BACKOFF, describeError } from '../projection/supervisor';
import { sleep } from './event-reactor';

export interface TickLoopOptions {
  /** Names the loop in log lines. */
  name: string;
  everyMs: number;
  log: (line: string) => void;
  /** Told of each failed tick (a status record, say). */
  onFailure?: (failures: number, error: string) => void;
  onSuccess?: () => void;
}

export class TickLoop {
  private readonly abort = new AbortController();
  private running: Promise<void> | null = null;

  constructor(
    private readonly tick: (signal: AbortSignal) => Promise<void>,
    private readonly options: TickLoopOptions,
  ) {}

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  start(): void {
    this.running ??= this.loop();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
  }

  private async loop(): Promise<void> {
    let failures = 0;
    while (!this.abort.signal.aborted) {
      try {
        await this.tick(this.abort.signal);
        failures = 0;
        this.options.onSuccess?.();
      } catch (error) {
        if (this.abort.signal.aborted) return;
        failures++;
        const reason = describeError(error);
        this.options.onFailure?.(failures, reason);
        const delay = backoffDelay(failures, DEFAULT_BACKOFF);
        this.options.log(`${this.options.name}: tick failed (attempt ${failures}), again in ${delay} ms: ${reason}`);
        await sleep(delay, this.abort.signal);
        continue;
      }
      await sleep(this.options.everyMs, this.abort.signal);
    }
  }
}
