import { comparePositions, type Position } from '../event-store/event-store.port';
import type { ReadStore } from '../read-store/read-store.port';
import { projectionProgress } from './runner';

interface Waiter {
  projection: string;
  position: Position;
  resolve: (reached: boolean) => void;
  timer: NodeJS.Timeout;
}

const POLL_MS = 1;

/**
 * Read your writes: a command answers once the projection serving its resource has passed the
 * command's commit position. Checkpoints are polled from the read store (so it works across
 * processes) only while someone waits; an in-process projector also signals progress directly.
 */
export class ProjectionWaiter {
  private readonly waiters = new Set<Waiter>();
  private readonly reached = new Map<string, Position>();
  private polling = false;

  constructor(private readonly reads: ReadStore) {
    projectionProgress.on('progress', (name: string, position: Position) => this.advance(name, position));
  }

  /** Resolves true once `projection` has passed `position`, or false after `timeoutMs`. */
  waitFor(projection: string, position: Position, timeoutMs: number): Promise<boolean> {
    const known = this.reached.get(projection);
    if (known && comparePositions(known, position) >= 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        projection,
        position,
        resolve,
        timer: setTimeout(() => {
          this.waiters.delete(waiter);
          resolve(false);
        }, timeoutMs),
      };
      this.waiters.add(waiter);
      void this.poll();
    });
  }

  private advance(projection: string, position: Position): void {
    const known = this.reached.get(projection);
    if (!known || comparePositions(position, known) > 0) this.reached.set(projection, position);
    for (const waiter of this.waiters) {
      if (waiter.projection === projection && comparePositions(position, waiter.position) >= 0) {
        clearTimeout(waiter.timer);
        this.waiters.delete(waiter);
        waiter.resolve(true);
      }
    }
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      while (this.waiters.size > 0) {
        const names = new Set([...this.waiters].map((w) => w.projection));
        for (const name of names) {
          const position = await this.reads.getCheckpoint(name);
          if (position) this.advance(name, position);
        }
        if (this.waiters.size > 0) await new Promise((r) => setTimeout(r, POLL_MS));
      }
    } finally {
      this.polling = false;
    }
  }
}
