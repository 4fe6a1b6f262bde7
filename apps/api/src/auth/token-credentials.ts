import { createHash } from 'node:crypto';

/** The token of `Authorization: <scheme> <token>`, or null when the header uses another scheme. */
export function schemeToken(header: string | string[] | undefined, scheme: string): string | null {
  if (typeof header !== 'string') return null;
  const space = header.indexOf(' ');
  if (space <= 0 || header.slice(0, space).toLowerCase() !== scheme.toLowerCase()) return null;
  const token = header.slice(space + 1).trim();
  return token.length > 0 && !/\s/.test(token) ? token : null;
}

/** An external identity as GetAuth shows it: printable characters only, at most 256 of them. */
export function sanitizedIdentity(value: string): string {
  return value.replace(/[\p{Cc}\p{Cf}]/gu, '').slice(0, 256);
}

const MAX_ENTRIES = 10_000;

/**
 * What a verified token established, remembered until the token expires (so a token is verified
 * once, not per request), keyed by the token's digest. Bounded: past MAX_ENTRIES it starts afresh,
 * which costs only re-verification.
 */
export class VerifiedTokens<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();

  get(token: string, now = Date.now()): T | undefined {
    const key = digest(token);
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(token: string, value: T, until: number): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(digest(token), { value, until });
  }
}

const digest = (token: string) => createHash('sha256').update(token).digest('base64url');
