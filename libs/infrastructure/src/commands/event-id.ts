import { randomUUID } from 'node:crypto';

/**
 * A time-ordered event id: a UUIDv7 (RFC 9562) whose first 48 bits are the Unix time in
 * milliseconds and whose other bits are randomUUID's (its version nibble set to 7, its variant kept).
 * Ids that grow keep the stores' event-id index appending to its last page.
 *
 * Not the `uuid` package's v7: that draws 16 fresh bytes from getRandomValues per id, about 3 µs,
 * against 0.2 µs for randomUUID, which draws from a pool; ordering within one millisecond is not
 * needed (RFC 9562 allows random bits there), only that later milliseconds sort later.
 */
export function timeOrderedId(now: number = Date.now()): string {
  const random = randomUUID(); // xxxxxxxx-xxxx-4xxx-vxxx-xxxxxxxxxxxx
  const time = now.toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8)}-7${random.slice(15)}`;
}
