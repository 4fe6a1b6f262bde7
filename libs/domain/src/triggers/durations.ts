/** Durations on the wire: decimal seconds with an `s` suffix (wire convention 11), e.g. `"300s"`, `"1.5s"`. */
const DURATION = /^(\d{1,12})(?:\.(\d{1,9}))?s$/;

/** Longest cooldown or delay a trigger may ask for: 30 days (ours; docs/operations.md, "Limits"). */
export const MAX_TRIGGER_DURATION_SECONDS = 30 * 24 * 3600;

/** Milliseconds of a well-formed duration, or undefined (fractions below a millisecond are dropped). */
export function durationMillis(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = DURATION.exec(value);
  if (!match) return undefined;
  const fraction = (match[2] ?? '').padEnd(3, '0').slice(0, 3);
  return Number(match[1]) * 1000 + Number(fraction);
}
