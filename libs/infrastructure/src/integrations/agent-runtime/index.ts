export * from './agent-runtime.port';
export { BuiltinRuntime } from './builtin-runtime';
export { OpenAiCompatibleRuntime } from './openai/openai-runtime';
export { loadRuntimeSettings, type RuntimeSettings } from './runtime-settings';
export { isWriteClassified, WRITE_CLASSIFIED_TOOLS } from './tools';

import type { AgentRuntime, ToolRunner } from './agent-runtime.port';
import { BuiltinRuntime } from './builtin-runtime';
import { OpenAiCompatibleRuntime } from './openai/openai-runtime';
import type { RuntimeSettings } from './runtime-settings';

/** The adapter SVC_AGENT_RUNTIME selects (the built-in runtime unless it says `openai`); `runTool` runs its tool calls. */
export function createAgentRuntime(settings: RuntimeSettings, runTool?: ToolRunner): AgentRuntime {
  return settings.runtime === 'openai' ? new OpenAiCompatibleRuntime(settings, { runTool }) : new BuiltinRuntime({ runTool });
}
