import type { BusNotification } from './notification-bus.port';
import { AFTER_POSITION_KEY, CausalGate, type FeedProgress } from './session-notification-stream';

/** A feed whose delivered position the test moves. */
class Feed implements FeedProgress {
  delivered = 0n;
  private readonly listeners = new Set<() => void>();
  hasDelivered(position: { commit: bigint }): boolean {
    return this.delivered >= position.commit;
  }
  onProgress(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
  advance(to: bigint): void {
    this.delivered = to;
    for (const l of [...this.listeners]) l();
  }
  get watching(): number {
    return this.listeners.size;
  }
}

const note = (text: string, after?: number): BusNotification => ({
  org: 'acme',
  topic: 'agents/a/sessions/s',
  notification: { value: { text }, ...(after === undefined ? {} : { [AFTER_POSITION_KEY]: `${after}/${after}` }) },
});

describe('CausalGate', () => {
  let feed: Feed;
  let out: string[];
  let seen: BusNotification[];
  let gate: CausalGate;

  beforeEach(() => {
    feed = new Feed();
    out = [];
    seen = [];
    gate = new CausalGate(feed, (n) => {
      seen.push(n);
      out.push((n.notification.value as { text: string }).text);
    }, 50);
  });
  afterEach(() => gate.close());

  it('passes what names no position, or one the feed has delivered, at once and without the mark', () => {
    feed.advance(5n);
    gate.push(note('plain'));
    gate.push(note('answered', 5));
    expect(out).toEqual(['plain', 'answered']);
    expect(seen[1].notification).toEqual({ value: { text: 'answered' } });
    expect(feed.watching).toBe(0);
  });

  it('holds a turn’s output until the feed delivers the event it answers, and everything behind it in order', () => {
    feed.advance(5n);
    gate.push(note('thinking', 7));
    gate.push(note('plain behind it'));
    gate.push(note('delta', 7));
    expect(out).toEqual([]);
    feed.advance(6n);
    expect(out).toEqual([]);
    feed.advance(7n);
    expect(out).toEqual(['thinking', 'plain behind it', 'delta']);
    expect(feed.watching).toBe(0);
  });

  it('lets held notifications go after the wait bound when the feed stalls', async () => {
    gate.push(note('stalled', 9));
    expect(out).toEqual([]);
    await new Promise((r) => setTimeout(r, 80));
    expect(out).toEqual(['stalled']);
    gate.push(note('next', 1));
    expect(out).toEqual(['stalled']);
    feed.advance(1n);
    expect(out).toEqual(['stalled', 'next']);
  });

  it('drops what it holds when the stream closes', () => {
    gate.push(note('held', 3));
    gate.close();
    feed.advance(3n);
    expect(out).toEqual([]);
    expect(feed.watching).toBe(0);
  });
});
