import { type Position, START } from '@svc/infrastructure/event-store/event-store.port';
import { type Context, parseCount, parsePosition, showPosition } from '../context';
import { type EventView, renderEvent, viewOf } from './event-view';

export interface EventsOptions {
  after?: string;
  limit?: string;
  stream?: string;
  type?: string;
  org?: string;
}

export interface EventsPage {
  events: EventView[];
  /** Pass as --after to read on; null at the end of the log. */
  next: string | null;
}

const PAGE = 1000;
const DEFAULT_LIMIT = 100;

/** The event browser: $all forwards from a position, filtered, one page of at most --limit events. */
export async function browseEvents(ctx: Context, options: EventsOptions): Promise<void> {
  let after: Position = options.after === undefined ? START : parsePosition(options.after, '--after');
  const limit = parseCount(options.limit, '--limit', DEFAULT_LIMIT);
  const events: EventView[] = [];
  let next: string | null = null;
  for (;;) {
    const page = await ctx.events().readAll({ after, maxCount: PAGE });
    for (const record of page) {
      after = record.position;
      if (options.stream !== undefined && record.streamId !== options.stream) continue;
      if (options.type !== undefined && record.type !== options.type) continue;
      if (options.org !== undefined && record.metadata.org !== options.org) continue;
      events.push(viewOf(record));
      if (events.length === limit) break;
    }
    if (events.length === limit) {
      next = showPosition(after);
      break;
    }
    if (page.length === 0) break;
  }
  ctx.print<EventsPage>({ events, next }, (result) => {
    const lines = result.events.map((e) => renderEvent(e, { stream: true }));
    if (lines.length === 0) lines.push('no events');
    if (result.next) lines.push(`(more: --after ${result.next})`);
    return lines.join('\n');
  });
}
