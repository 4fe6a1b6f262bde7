import { hash } from 'node:crypto';
import { DomainError } from '@svc/domain/shared/domain-error';
import type { AuthLimitSettings } from '@svc/infrastructure/config/env';
import { rateLimitExceeded } from '../http/errors';
import { MAX_BUCKETS, TokenBuckets } from '../observability/rate-limit';

/** Failed pairs remembered at most; past it the oldest go. */
export const MAX_FAILED_PAIRS = 10_000;
/**
 * Checks of one key username running or waiting at the gate at once: a flood of one username holds
 * one slot of the gate, not its whole queue, so another tenant's sign-in waits for one of its hashes
 * at most. One key has one secret, and requests of one pair share one check, so its owner never
 * needs two. From one address, at most half of what the gate holds (running and waiting): a flood of
 * random usernames from one address leaves the other half to everyone else, while a gateway with
 * many users signing in at once is still served.
 */
export const IN_FLIGHT_PER_KEY = 1;
export const inFlightPerAddress = (settings: AuthLimitSettings) => Math.max(2, Math.floor((settings.hashConcurrency + settings.hashQueue) / 2));

/**
 * At most `concurrency` tasks at once and `queue` waiting; a task past both is refused at once
 * (UNAVAILABLE, retry after a second) rather than queued without bound: a flood of slow hashes then
 * costs the process a fixed share of libuv's thread pool and a bounded wait, never all of it.
 */
export class HashGate {
  private running = 0;
  // Bounded by `queue` (a few dozen): shift() on it is cheap.
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly concurrency: number,
    private readonly queue: number,
  ) {}

  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running < this.concurrency) this.running++;
    else if (this.waiting.length < this.queue) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else throw new DomainError('UNAVAILABLE', 'too many API key verifications are waiting on this instance; retry after 1 s', 'AUTH_VERIFICATIONS_BUSY', { retryAfterSeconds: '1' });
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiter, so `running` never overshoots.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}

/**
 * Pairs that failed recently, by their keyed digest (never the secret), each with the position of
 * the key document it failed against: a key created or rotated since is checked afresh. Entries
 * expire after `ttlMs`; past MAX_FAILED_PAIRS the oldest go (one per insert, so no sweep).
 */
class FailedPairs {
  private readonly entries = new Map<string, { keyPos: unknown; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly max: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  has(digest: string, keyPos: unknown, now: number): boolean {
    const entry = this.entries.get(digest);
    if (!entry) return false;
    if (entry.until > now && entry.keyPos === keyPos) return true;
    this.entries.delete(digest);
    return false;
  }

  add(digest: string, keyPos: unknown, now: number): void {
    if (this.ttlMs === 0) return;
    this.entries.delete(digest); // re-inserted last: the map's order is the expiry order
    this.entries.set(digest, { keyPos, until: now + this.ttlMs });
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
  }
}

/** Failures per minute to a token bucket of that burst, refilled evenly; null for no limit. */
const failureBuckets = (perMinute: number, now: () => number) => (perMinute > 0 ? new TokenBuckets(perMinute / 60, perMinute, MAX_BUCKETS, now) : null);

/**
 * The bounds on checking API key pairs that are not in the cache of verified pairs (docs: "Security
 * model"): failed attempts per key username and per client address, a memory of failed pairs, and
 * the gate every slow hash goes through. Unknown usernames go through the same steps as known ones.
 */
export class AuthLimits {
  private readonly byKey: TokenBuckets | null;
  private readonly byAddress: TokenBuckets | null;
  private readonly failed: FailedPairs;
  /** Admitted checks not yet settled, by `k<username digest>` and `a<address>`; never more entries than the gate holds. */
  private readonly inFlight = new Map<string, number>();
  private readonly perAddress: number;
  readonly gate: HashGate;

  constructor(
    settings: AuthLimitSettings,
    private readonly now: () => number = Date.now,
  ) {
    this.byKey = failureBuckets(settings.failuresPerKeyPerMinute, now);
    this.byAddress = failureBuckets(settings.failuresPerAddressPerMinute, now);
    this.failed = new FailedPairs(settings.failedPairCacheMs, MAX_FAILED_PAIRS);
    this.gate = new HashGate(settings.hashConcurrency, settings.hashQueue);
    this.perAddress = inFlightPerAddress(settings);
  }

  get failedPairs(): number {
    return this.failed.size;
  }

  /**
   * Admits a check that will run a slow hash: refused (RESOURCE_EXHAUSTED, with the seconds to wait)
   * while IN_FLIGHT_PER_KEY checks of the username or `inFlightPerAddress` of the address are
   * running or waiting, or when either has no attempt left; otherwise spends one attempt of each.
   * Every admitted check is `settle`d once: a verified pair gives its attempts back, so only
   * failures count. A dimension set to 0 attempts a minute is not limited at all.
   */
  admit(username: string, address: string): void {
    const key = usernameKey(username);
    if (this.byKey && this.running(`k${key}`) >= IN_FLIGHT_PER_KEY) {
      throw rateLimitExceeded('another sign-in attempt for this API key is being checked', 1, { scope: 'api_key' });
    }
    if (this.byAddress && this.running(`a${address}`) >= this.perAddress) {
      throw rateLimitExceeded('other sign-in attempts from this address are being checked', 1, { scope: 'address' });
    }
    const forKey = this.byKey?.take(key);
    if (forKey && !forKey.admitted) {
      throw rateLimitExceeded('too many failed sign-in attempts for this API key', forKey.retryAfterSeconds, { scope: 'api_key' });
    }
    const forAddress = this.byAddress?.take(address);
    if (forAddress && !forAddress.admitted) {
      this.byKey?.refund(key);
      throw rateLimitExceeded('too many failed sign-in attempts from this address', forAddress.retryAfterSeconds, { scope: 'address' });
    }
    if (this.byKey) this.count(`k${key}`, 1);
    if (this.byAddress) this.count(`a${address}`, 1);
  }

  /** Ends an admitted check; `counts`: it failed (a check that did not run, or verified the pair, gives its attempts back). */
  settle(username: string, address: string, counts: boolean): void {
    const key = usernameKey(username);
    if (this.byKey) this.count(`k${key}`, -1);
    if (this.byAddress) this.count(`a${address}`, -1);
    if (counts) return;
    this.byKey?.refund(key);
    this.byAddress?.refund(address);
  }

  private running(id: string): number {
    return this.inFlight.get(id) ?? 0;
  }

  private count(id: string, delta: number): void {
    const n = this.running(id) + delta;
    if (n > 0) this.inFlight.set(id, n);
    else this.inFlight.delete(id);
  }

  failedRecently(digest: string, keyPos: unknown): boolean {
    return this.failed.has(digest, keyPos, this.now());
  }

  rememberFailure(digest: string, keyPos: unknown): void {
    this.failed.add(digest, keyPos, this.now());
  }
}

/** A username is whatever the header held (up to 16 KiB): buckets are keyed by its digest, a fixed 43 characters. */
const usernameKey = (username: string) => hash('sha256', username, 'base64url');
