import type { LoggerService } from '@nestjs/common';

/**
 * How long a stop may take before the process gives up and exits 1 (docs/operations.md, "Stopping").
 * Under Docker's default grace period (10 s, then SIGKILL), so our own deadline fires first and says why.
 */
export const STOP_DEADLINE_MS = 8000;

export interface GracefulStopOptions {
  logger: LoggerService;
  deadlineMs?: number;
  /** Injected by tests; the process exits for real otherwise. */
  exit?: (code: number) => void;
}

/**
 * The one way a process of ours stops: `work` runs once however many signals or callers ask, then the
 * process exits with the requested code (1 when `work` fails), or with 1 when the deadline passes first.
 */
export class GracefulStop {
  private running: Promise<void> | null = null;
  private readonly exit: (code: number) => void;

  constructor(
    private readonly work: () => Promise<void>,
    private readonly options: GracefulStopOptions,
  ) {
    this.exit = options.exit ?? ((code) => process.exit(code));
  }

  get stopping(): boolean {
    return this.running !== null;
  }

  /**
   * SIGTERM and SIGINT start the stop; repeats are ignored rather than left to Node's default (which
   * would kill the process mid-drain). `ignoreSigint` lets a forked child leave Ctrl-C to its parent.
   */
  listen(ignoreSigint: () => boolean = () => false): this {
    process.on('SIGTERM', () => void this.stop('SIGTERM'));
    process.on('SIGINT', () => {
      if (!ignoreSigint()) void this.stop('SIGINT');
    });
    return this;
  }

  /**
   * A promise rejected with no handler, or an exception nothing caught, is logged (with its stack)
   * and stops the process the same way, with status 1: never a silent death, never a process left
   * running in an unknown state. A second fault during that stop is logged and otherwise ignored.
   */
  catchFatal(): this {
    const fatal = (kind: string) => (error: unknown) => {
      const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
      this.options.logger.error(`${kind}: ${error instanceof Error ? error.message : String(error)}`, stack, 'process');
      void this.stop(kind, 1);
    };
    process.on('unhandledRejection', fatal('unhandled rejection'));
    process.on('uncaughtException', fatal('uncaught exception'));
    return this;
  }

  stop(reason: string, exitCode = 0): Promise<void> {
    if (this.running) return this.running;
    const deadlineMs = this.options.deadlineMs ?? STOP_DEADLINE_MS;
    this.options.logger.log(`stopping (${reason})`);
    const deadline = setTimeout(() => {
      this.options.logger.error(`stop did not finish within ${deadlineMs} ms; exiting with status 1`);
      this.exit(1);
    }, deadlineMs);
    this.running = this.work().then(
      () => {
        clearTimeout(deadline);
        this.options.logger.log(`stopped (${reason})`);
        this.exit(exitCode);
      },
      (error: unknown) => {
        clearTimeout(deadline);
        this.options.logger.error(`stop failed: ${error instanceof Error ? error.message : String(error)}`);
        this.exit(1);
      },
    );
    return this.running;
  }
}
