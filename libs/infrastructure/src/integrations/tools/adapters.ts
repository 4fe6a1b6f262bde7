/**
 * The tool adapters this service runs, one per connection type. A type without an adapter here
 * (one added later, say) answers UNAVAILABLE from the executor.
 */
import { CodeHostToolAdapter } from './codehost/codehost.adapter';
import { ChatToolAdapter } from './chat/chat.adapter';
import { HttpToolAdapter } from './http/http.adapter';
import { PagerToolAdapter } from './pager/pager.adapter';
import { PromqlToolAdapter } from './promql/promql.adapter';
import { SqlAdapter } from './sql/sql-adapter';
import { TrackerToolAdapter } from './tracker/tracker.adapter';
import { DEFAULT_TOOL_LIMITS, type ToolAdapter, type ToolLimits } from './tool-adapter.port';

/** A pool (and its sockets) unused this long is closed. */
export const TOOL_POOL_IDLE_MS = 5 * 60_000;

export function createToolAdapters(limits: ToolLimits = DEFAULT_TOOL_LIMITS): ToolAdapter[] {
  return [
    new SqlAdapter({ idleMs: TOOL_POOL_IDLE_MS, timeoutMs: limits.timeoutMs }),
    new PromqlToolAdapter(),
    new HttpToolAdapter(),
    new CodeHostToolAdapter(),
    new PagerToolAdapter(),
    new TrackerToolAdapter(),
    new ChatToolAdapter(),
  ];
}
