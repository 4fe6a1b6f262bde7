import { type Position, type RecordedEvent, START } from '@svc/infrastructure/event-store/event-store.port';
import { type Context, parseCount, parsePosition, showPosition, UsageError } from '../context';
import { type EventView, renderEvent, viewOf } from './event-view';

export interface EventsOptions {
  after?: string;
  before?: string;
  limit?: string;
  stream?: string;
  type?: string;
  org?: string;
  /** Events recorded at or after this time: RFC 3339 (`2026-11-22T17:00:00Z`) or a duration ago (`90s`, `15m`, `2h`, `7d`). */
  since?: string;
  /** Events appended by one request: its X-Request-Id (the events' correlationId). */
  correlation?: string;
  /** Newest first, from the head (or before --before). */
  reverse?: boolean;
  /** Tail the log live (from the head, or after --after) until interrupted, or --limit events. */
  follow?: boolean;
}

export interface EventsPage {
  events: EventView[];
  /** Pass as --after (or --before with --reverse) to read on; null at the end of the log. */
  next: string | null;
}

const PAGE = 1000;
const DEFAULT_LIMIT = 100;

/**
 * The event browser: $all forwards from a position (or backwards with --reverse), filtered, one page
 * of at most --limit events. False (exit 1) when no event matched.
 */
export async function browseEvents(ctx: Context, options: EventsOptions): Promise<boolean | void> {
  if (options.follow) return followEvents(ctx, options);
  if (options.reverse && options.after !== undefined) throw new UsageError('--reverse reads before a position: use --before, not --after');
  if (!options.reverse && options.before !== undefined) throw new UsageError('--before needs --reverse');
  const from = options.reverse ? options.before : options.after;
  let cursor: Position | undefined = from === undefined ? (options.reverse ? undefined : START) : parsePosition(from, options.reverse ? '--before' : '--after');
  const limit = parseCount(options.limit, '--limit', DEFAULT_LIMIT);
  const matches = filterOf(options);
  const since = sinceOf(options);
  const events: EventView[] = [];
  let next: string | null = null;
  let done = false;
  for (;;) {
    const page = await ctx.events().readAll({ after: cursor, maxCount: PAGE, direction: options.reverse ? 'backwards' : 'forwards' });
    for (const record of page) {
      cursor = record.position;
      if (since !== null && Date.parse(record.created) < since) {
        // The log is in commit order: newest first, everything further back is older still.
        if (options.reverse) {
          done = true;
          break;
        }
        continue;
      }
      if (!matches(record)) continue;
      events.push(viewOf(record));
      if (events.length === limit) break;
    }
    if (events.length === limit && !done) {
      next = showPosition(cursor!);
      break;
    }
    if (page.length === 0 || done) break;
  }
  const flag = options.reverse ? '--reverse --before' : '--after';
  ctx.print<EventsPage>({ events, next }, (result) => {
    const lines = result.events.map((e) => renderEvent(e, { stream: true }));
    if (lines.length === 0) lines.push('no events');
    if (result.next) lines.push(`(more: ${flag} ${result.next})`);
    return lines.join('\n');
  });
  return events.length > 0;
}

/**
 * `events --follow`: every matching event as it commits, one per line (NDJSON with --json), until
 * SIGINT/SIGTERM or --limit events. From the head, or after --after to replay first (no gap between).
 */
async function followEvents(ctx: Context, options: EventsOptions): Promise<void> {
  if (options.reverse || options.before !== undefined) throw new UsageError('--follow reads forwards: it does not combine with --reverse or --before');
  const limit = options.limit === undefined ? Infinity : parseCount(options.limit, '--limit', DEFAULT_LIMIT);
  const after = options.after === undefined ? await ctx.events().headPosition() : parsePosition(options.after, '--after');
  const matches = filterOf(options);
  const since = sinceOf(options);
  const subscription = ctx.events().subscribeToAll({ after });
  const stop = (): void => void subscription.unsubscribe();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  let seen = 0;
  try {
    for await (const record of subscription) {
      if (!matches(record) || (since !== null && Date.parse(record.created) < since)) continue;
      ctx.line(viewOf(record), (e) => renderEvent(e, { stream: true }));
      if (++seen >= limit) break;
    }
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await subscription.unsubscribe();
  }
}

function filterOf(options: EventsOptions): (record: RecordedEvent) => boolean {
  return (record) =>
    (options.stream === undefined || record.streamId === options.stream) &&
    (options.type === undefined || record.type === options.type) &&
    (options.org === undefined || record.metadata.org === options.org) &&
    (options.correlation === undefined || record.metadata.correlationId === options.correlation);
}

const DURATION = /^(\d+)(s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** --since as epoch milliseconds (null when absent): an RFC 3339 time, or a duration before now. */
export function sinceOf(options: Pick<EventsOptions, 'since'>, now: number = Date.now()): number | null {
  const text = options.since;
  if (text === undefined) return null;
  const duration = DURATION.exec(text);
  if (duration) return now - Number(duration[1]) * UNIT_MS[duration[2]];
  const at = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(at)) throw new UsageError(`--since must be a time like 2026-11-22T17:00:00Z or a duration ago like 15m, 2h, 7d; got '${text}'`);
  return at;
}
