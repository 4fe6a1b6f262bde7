import { TokenBuckets } from './rate-limit';

describe('TokenBuckets (per-organization rate limit)', () => {
  let now = 0;
  const clock = () => now;

  beforeEach(() => (now = 1_000_000));

  it('admits the burst at once, refuses the next with the seconds until a token is back, and refills at the rate', () => {
    const buckets = new TokenBuckets(2, 3, 100, clock);
    expect([1, 2, 3].map(() => buckets.take('acme').admitted)).toEqual([true, true, true]);
    expect(buckets.take('acme')).toEqual({ admitted: false, retryAfterSeconds: 1 });
    expect(buckets.take('globex').admitted).toBe(true);
    now += 500; // half a second at 2/s: one token
    expect(buckets.take('acme').admitted).toBe(true);
    expect(buckets.take('acme').admitted).toBe(false);
  });

  it('a slow rate asks for a longer wait', () => {
    const buckets = new TokenBuckets(0.1, 1, 100, clock);
    expect(buckets.take('acme').admitted).toBe(true);
    expect(buckets.take('acme')).toEqual({ admitted: false, retryAfterSeconds: 10 });
  });

  it('keeps memory bounded: idle full buckets go first, then the least recently used', () => {
    const buckets = new TokenBuckets(1, 5, 10, clock);
    for (let i = 0; i < 10; i++) buckets.take(`org-${i}`);
    now += 10_000; // every bucket is full again
    buckets.take('hot');
    expect(buckets.size).toBe(1);

    for (let i = 0; i < 20; i++) {
      buckets.take(`busy-${i}`);
      buckets.take('hot'); // recently used: survives eviction
    }
    expect(buckets.size).toBeLessThanOrEqual(10);
    for (let i = 0; i < 3; i++) buckets.take('hot');
    // 'hot' kept its (spent) bucket: it was not evicted and refilled.
    expect(buckets.take('hot').admitted).toBe(false);
  });
});
