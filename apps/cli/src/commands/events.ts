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

/** The event browser: $all forwards from a position (or backwards with --reverse), filtered, one page of at most --limit events. */
export async function browseEvents(ctx: Context, options: EventsOptions): Promise<void> {
  if (options.follow) return followEvents(ctx, options);
  if (options.reverse && options.after !== undefined) throw new UsageError('--reverse reads before a position: use --before, not --after');
  if (!options.reverse && options.before !== undefined) throw new UsageError('--before needs --reverse');
  const from = options.reverse ? options.before : options.after;
  let cursor: Position | undefined = from === undefined ? (options.reverse ? undefined : START) : parsePosition(from, options.reverse ? '--before' : '--after');
  const limit = parseCount(options.limit, '--limit', DEFAULT_LIMIT);
  const matches = filterOf(options);
  const events: EventView[] = [];
  let next: string | null = null;
  for (;;) {
    const page = await ctx.events().readAll({ after: cursor, maxCount: PAGE, direction: options.reverse ? 'backwards' : 'forwards' });
    for (const record of page) {
      cursor = record.position;
      if (!matches(record)) continue;
      events.push(viewOf(record));
      if (events.length === limit) break;
    }
    if (events.length === limit) {
      next = showPosition(cursor!);
      break;
    }
    if (page.length === 0) break;
  }
  const flag = options.reverse ? '--reverse --before' : '--after';
  ctx.print<EventsPage>({ events, next }, (result) => {
    const lines = result.events.map((e) => renderEvent(e, { stream: true }));
    if (lines.length === 0) lines.push('no events');
    if (result.next) lines.push(`(more: ${flag} ${result.next})`);
    return lines.join('\n');
  });
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
  const subscription = ctx.events().subscribeToAll({ after });
  const stop = (): void => void subscription.unsubscribe();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  let seen = 0;
  try {
    for await (const record of subscription) {
      if (!matches(record)) continue;
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
    (options.org === undefined || record.metadata.org === options.org);
}
