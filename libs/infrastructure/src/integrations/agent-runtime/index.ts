export * from './agent-runtime.port';
export { BuiltinRuntime } from './builtin-runtime';
export { OpenAiCompatibleRuntime } from './openai/openai-runtime';
export { loadRuntimeSettings, type RuntimeSettings } from './runtime-settings';
export { isWriteClassified, WRITE_CLASSIFIED_TOOLS } from './tools';

import type { AgentRuntime } from './agent-runtime.port';
import { BuiltinRuntime } from './builtin-runtime';
import { OpenAiCompatibleRuntime } from './openai/openai-runtime';
import type { RuntimeSettings } from './runtime-settings';

/** The adapter SVC_AGENT_RUNTIME selects (the built-in runtime unless it says `openai`). */
export function createAgentRuntime(settings: RuntimeSettings): AgentRuntime {
  return settings.runtime === 'openai' ? new OpenAiCompatibleRuntime(settings) : new BuiltinRuntime();
}
