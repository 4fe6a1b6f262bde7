import type { Logger } from '@nestjs/common';
import { type ChildProcess, fork } from 'node:child_process';
import * as path from 'node:path';
import { backoffDelay, type BackoffOptions, DEFAULT_BACKOFF } from '@svc/infrastructure/projection/supervisor';
import type { Companion } from './shutdown';

/** A child that ran this long before exiting starts the backoff over: it was not crash-looping. */
export const STABLE_AFTER_MS = 30_000;

export interface ProjectorSupervisorOptions {
  logger: Logger;
  /** Whether the api is stopping: a child that exits then is not restarted. */
  stopping: () => boolean;
  /** Injected by tests; forks dist/apps/projector/src/main.js otherwise. */
  start?: () => ChildProcess;
  backoff?: BackoffOptions;
  stableAfterMs?: number;
}

/**
 * The projector as a supervised child process of the api (SVC_PROJECTOR=process, `npm start`). A child
 * that exits while the api is not stopping (a crash, `kill -9`, an out-of-memory kill, a SIGTERM sent to
 * it alone) is started again after a backoff (200 ms doubling to 30 s, jittered), forever, and the api
 * keeps serving meanwhile: commands wait for their projection as usual (SVC_READ_WAIT_MS), reads answer
 * from the read models as last projected, and health reports the projector as not running.
 * Stopped by the api after its requests have drained.
 */
export class ProjectorSupervisor implements Companion {
  private child: ChildProcess | null = null;
  private exited: Promise<string | null> = Promise.resolve(null);
  private restart: NodeJS.Timeout | null = null;
  private attempt = 0;
  private readonly start: () => ChildProcess;

  constructor(private readonly options: ProjectorSupervisorOptions) {
    this.start = options.start ?? (() => fork(path.join(__dirname, '../../projector/src/main.js'), [], { stdio: 'inherit' }));
  }

  launch(): this {
    const child = this.start();
    const startedAt = Date.now();
    this.child = child;
    this.exited = new Promise((resolve) => {
      const ended = (how: string | number | null, failed: boolean) => {
        if (this.child !== child) return;
        // While the api stops, the child stays recorded: stop() reports how it ended.
        if (!this.options.stopping()) {
          this.child = null;
          this.scheduleRestart(how, Date.now() - startedAt);
        }
        resolve(failed ? `projector exited (${how})` : null);
      };
      // Ended by the SIGTERM of our own stop: a child still loading its code has no handler yet, and dies of it (cleanly: it had opened nothing).
      child.once('exit', (code, signal) => ended(signal ?? code, code !== 0 && !(signal === 'SIGTERM' && this.options.stopping())));
      // A fork that could not start at all emits 'error' and no 'exit'; a running one may emit both.
      child.once('error', (error) => {
        this.options.logger.error(`projector process: ${error.message}`);
        if (child.pid === undefined) ended(error.message, true);
      });
    });
    return this;
  }

  /** Stops the running child (SIGTERM) and cancels a pending restart; fails when that child does not stop cleanly. */
  async stop(): Promise<void> {
    if (this.restart) clearTimeout(this.restart);
    this.restart = null;
    const child = this.child;
    // A child that crashed before the stop was reported then and is not restarted: nothing to stop.
    if (!child) return;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const failure = await this.exited;
    if (failure) throw new Error(failure);
  }

  private scheduleRestart(how: string | number | null, ranMs: number): void {
    if (ranMs >= (this.options.stableAfterMs ?? STABLE_AFTER_MS)) this.attempt = 0;
    this.attempt += 1;
    const delay = backoffDelay(this.attempt, this.options.backoff ?? DEFAULT_BACKOFF);
    this.options.logger.error(`projector exited (${how}) after ${ranMs} ms; restarting it in ${delay} ms (restart ${this.attempt})`);
    this.restart = setTimeout(() => {
      this.restart = null;
      if (this.options.stopping()) return;
      this.launch();
      this.options.logger.log(`projector restarted (pid ${this.child?.pid ?? '-'})`);
    }, delay);
  }
}
