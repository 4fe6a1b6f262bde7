import type { Position } from '../event-store/event-store.port';

/**
 * The low-water mark of the checkpoint: jobs begun in log order, each with the latest position
 * passed after it. The checkpoint may advance over a job once it, and every job before it, is done.
 * Holds one entry per unfinished job (and finished ones behind it), never one per event.
 */
export class Marks {
  private readonly queue: Array<{ position: Position; passed: Position | null; done: boolean }> = [];

  constructor(private safe: Position) {}

  /** Jobs not yet passed (after passing the finished ones at the head). */
  unsettled(): number {
    this.settle();
    return this.queue.length;
  }

  pass(position: Position): void {
    if (this.queue.length === 0) this.safe = position;
    else this.queue[this.queue.length - 1].passed = position;
  }

  begin(position: Position): { done: boolean } {
    const mark = { position, passed: null, done: false };
    this.queue.push(mark);
    return mark;
  }

  settle(): Position {
    while (this.queue.length > 0 && this.queue[0].done) {
      const mark = this.queue.shift()!;
      this.safe = mark.passed ?? mark.position;
    }
    return this.safe;
  }
}
