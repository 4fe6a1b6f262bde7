/**
 * The rules every tool call passes before anything runs: a tool the agent has not enabled is
 * refused, and a write-classified tool in a dry-run or incognito session is stubbed (docs/decisions.md,
 * "Agent runtime"). The tool executor (integrations/tools/tool-executor.ts) applies them first; a
 * runtime built without an executor answers every other call honestly as unavailable.
 */
import type { RuntimeSessionSettings, ToolCall, ToolResult, ToolRunner } from './agent-runtime.port';

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
 * What a call gets without running: refused when the agent has not enabled the tool, stubbed when
 * it is write-classified and the session is dry-run or incognito (dry_run forces incognito); null
 * when it may run.
 */
export function gatedResultOf(call: ToolCall, enabledTools: readonly string[], settings: RuntimeSessionSettings): Record<string, unknown> | null {
  if (!enabledTools.includes(call.name)) return { error: 'NOT_ENABLED', message: `${call.name} is not enabled for this agent` };
  if (isWriteClassified(call.name) && (settings.dryRun || settings.incognito)) {
    return {
      stubbed: true,
      message: `${call.name} changes things outside the service; ${settings.dryRun ? 'a dry-run' : 'an incognito'} session does not run it`,
    };
  }
  return null;
}

/**
 * The result of a tool call in a runtime without an executor: the gate's answer, else an honest
 * UNAVAILABLE. The content is JSON text, as the Activity's toolResults require.
 */
export function toolResultOf(call: ToolCall, enabledTools: readonly string[], settings: RuntimeSessionSettings): ToolResult {
  const content = gatedResultOf(call, enabledTools, settings) ?? {
    error: 'UNAVAILABLE',
    message: `${call.name} cannot run in this runtime: no executor for it is configured`,
  };
  return { toolCallId: call.id, content: JSON.stringify(content) };
}

/** The ToolRunner of a runtime built without a tool executor (unit tests, tools switched off). */
export const runNoTools: ToolRunner = async (call, { agent, session }) => toolResultOf(call, agent.enabledTools, session.settings);
