/** Buckets kept at most; past it the least recently used go (a full bucket equals a missing one). */
export const MAX_BUCKETS = 10_000;

interface Bucket {
  tokens: number;
  at: number;
}

export type Admission = { admitted: true } | { admitted: false; retryAfterSeconds: number };

/**
 * A token bucket per key (an organization; a key username or a client address for failed sign-ins): `burst` requests at once, refilled at `perSecond`.
 * Memory is bounded: buckets live in least-recently-used order and the oldest go past MAX_BUCKETS;
 * a bucket idle long enough to be full again is dropped, since a new one starts full anyway.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly maxBuckets = MAX_BUCKETS,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.buckets.size;
  }

  take(key: string): Admission {
    const now = this.now();
    const bucket = this.buckets.get(key);
    let tokens = this.burst;
    if (bucket) {
      this.buckets.delete(key); // re-inserted below: the map's order is the recency order
      tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    }
    const admitted = tokens >= 1;
    if (admitted) tokens -= 1;
    this.buckets.set(key, { tokens, at: now });
    if (this.buckets.size > this.maxBuckets) this.evict(now);
    if (admitted) return { admitted: true };
    return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / this.perSecond)) };
  }

  /** Gives back the token a `take` spent, for a request that turned out not to count (never past the burst). */
  refund(key: string): void {
    const bucket = this.buckets.get(key);
    if (bucket) bucket.tokens = Math.min(this.burst, bucket.tokens + 1);
  }

  /**
   * Drops the buckets that are full again, then the oldest down to 90% of the bound, so a sweep
   * (linear in the buckets) runs once per tenth of the bound new keys at most.
   */
  private evict(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond >= this.burst) this.buckets.delete(key);
    }
    const target = Math.floor(this.maxBuckets * 0.9);
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= target) break;
      this.buckets.delete(key);
    }
  }
}
