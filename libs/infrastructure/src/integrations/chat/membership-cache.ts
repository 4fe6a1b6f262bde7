/**
 * The bot's channel membership, cached per connection for a short time, so trigger writes and chat
 * invocations do not each call the platform (docs/decisions.md, "Chat port"). A read that failed is
 * remembered for a shorter time (the fallback is used meanwhile, without a call per write); a
 * concurrent read for the same key waits for the one in flight. Bounded in entries.
 */
import type { ChatMembership } from './chat.port';

/** How long a membership read is used (ours): a bot invited to a channel is seen within a minute. */
export const MEMBERSHIP_TTL_MS = 60_000;
/** How long a failed read is remembered (ours). */
export const MEMBERSHIP_FAILURE_TTL_MS = 10_000;
const MAX_ENTRIES = 1_000;

/** A read: the membership, or null when it could not be read (no token, the platform unavailable). */
export type MembershipRead = ChatMembership | null;

interface Entry {
  value: Promise<MembershipRead>;
  expires: number;
}

export class MembershipCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs = MEMBERSHIP_TTL_MS,
    private readonly failureTtlMs = MEMBERSHIP_FAILURE_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  async get(key: string, load: () => Promise<MembershipRead>): Promise<MembershipRead> {
    const at = this.now();
    const cached = this.entries.get(key);
    if (cached && cached.expires > at) return cached.value;
    const value = load().catch(() => null);
    const entry: Entry = { value, expires: at + this.ttlMs };
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    const read = await value;
    if (read === null && this.entries.get(key) === entry) entry.expires = at + this.failureTtlMs;
    return read;
  }

  /** Forgets a connection's membership (its configuration changed). */
  forget(key: string): void {
    this.entries.delete(key);
  }
}
