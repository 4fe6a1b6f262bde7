/**
 * What the runtime does with a tool call. No tool executor runs inside the runtime yet, so every
 * call gets an honest result instead of an invented one; the classification decides which results
 * say "stubbed" (docs/decisions.md, "Agent runtime").
 */
import type { RuntimeSessionSettings, ToolCall, ToolResult } from './agent-runtime.port';

/**
 * Tools with effects outside the service (a message posted, an incident or ticket opened, an HTTP
 * call whose method may change state). Incognito and dry-run sessions never run them. Every other
 * tool (SQL, PromQL, code host reads) only reads.
 */
export const WRITE_CLASSIFIED_TOOLS: ReadonlySet<string> = new Set([
  'TOOL_HTTP_REQUEST',
  'TOOL_CHAT_POST_MESSAGE',
  'TOOL_PAGER_CREATE_INCIDENT',
  'TOOL_TRACKER_CREATE_TICKET',
]);

export function isWriteClassified(tool: string): boolean {
  return WRITE_CLASSIFIED_TOOLS.has(tool);
}

/**
 * The result of a tool call in this runtime: a write-classified tool in a dry-run or incognito
 * session is stubbed (dry_run forces incognito); a tool the agent has not enabled is refused; any
 * other tool is unavailable here. The content is JSON text, as the Activity's toolResults require.
 */
export function toolResultOf(call: ToolCall, enabledTools: readonly string[], settings: RuntimeSessionSettings): ToolResult {
  let content: Record<string, unknown>;
  if (!enabledTools.includes(call.name)) {
    content = { error: 'NOT_ENABLED', message: `${call.name} is not enabled for this agent` };
  } else if (isWriteClassified(call.name) && (settings.dryRun || settings.incognito)) {
    content = {
      stubbed: true,
      message: `${call.name} changes things outside the service; ${settings.dryRun ? 'a dry-run' : 'an incognito'} session does not run it`,
    };
  } else {
    content = { error: 'UNAVAILABLE', message: `${call.name} cannot run in this runtime: no executor for it is configured` };
  }
  return { toolCallId: call.id, content: JSON.stringify(content) };
}
