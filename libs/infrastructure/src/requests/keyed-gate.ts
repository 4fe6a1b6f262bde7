/**
 * Admission for expensive reads (history folds): at most `perKey` running per key (an
 * organization) and `total` in the process, with a short queue each; past the queue the caller is
 * told to come back (RESOURCE_EXHAUSTED with retryAfterSeconds), so one tenant's burst waits its
 * turn or is refused instead of taking every tenant's event loop.
 */
import { DomainError } from '@svc/domain/shared/domain-error';

export interface KeyedGateOptions {
  perKey: number;
  total: number;
  /** Callers that may wait per key; more are refused at once. */
  queuePerKey: number;
  /** What the refusal names (`history reads`). */
  what: string;
}

interface Waiter {
  key: string;
  resolve: () => void;
}

export class KeyedGate {
  private readonly runningByKey = new Map<string, number>();
  private readonly waitingByKey = new Map<string, number>();
  private running = 0;
  /** FIFO across keys: a waiter is admitted when both its key and the process have room. */
  private readonly queue: Waiter[] = [];

  constructor(private readonly options: KeyedGateOptions) {}

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    await this.admit(key);
    try {
      return await task();
    } finally {
      this.release(key);
    }
  }

  private admit(key: string): Promise<void> {
    if (this.hasRoom(key) && !this.waitingByKey.has(key)) {
      this.take(key);
      return Promise.resolve();
    }
    const waiting = this.waitingByKey.get(key) ?? 0;
    if (waiting >= this.options.queuePerKey) {
      throw new DomainError('RESOURCE_EXHAUSTED', `too many ${this.options.what} of this organization at once; retry after 1 s`, 'CONCURRENCY_LIMIT_EXCEEDED', { retryAfterSeconds: '1' });
    }
    this.waitingByKey.set(key, waiting + 1);
    return new Promise((resolve) => this.queue.push({ key, resolve }));
  }

  private hasRoom(key: string): boolean {
    return this.running < this.options.total && (this.runningByKey.get(key) ?? 0) < this.options.perKey;
  }

  private take(key: string): void {
    this.running++;
    this.runningByKey.set(key, (this.runningByKey.get(key) ?? 0) + 1);
  }

  private release(key: string): void {
    this.running--;
    const left = (this.runningByKey.get(key) ?? 1) - 1;
    if (left === 0) this.runningByKey.delete(key);
    else this.runningByKey.set(key, left);
    // The queue holds at most queuePerKey per key: a scan of it is bounded by the keys waiting.
    for (let i = 0; i < this.queue.length && this.running < this.options.total; i++) {
      const waiter = this.queue[i];
      if (!this.hasRoom(waiter.key)) continue;
      this.queue.splice(i--, 1);
      const waiting = (this.waitingByKey.get(waiter.key) ?? 1) - 1;
      if (waiting === 0) this.waitingByKey.delete(waiter.key);
      else this.waitingByKey.set(waiter.key, waiting);
      this.take(waiter.key);
      waiter.resolve();
    }
  }
}
