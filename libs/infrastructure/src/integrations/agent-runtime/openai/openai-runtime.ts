/**
 * The OpenAI-compatible adapter: a turn is a loop of streaming chat-completions calls. Each call is
 * announced by AssistantThinking; its text deltas go out as AssistantOutput (one `seq` counter for
 * the whole turn); tool calls run through the tool executor and the model is called again, at
 * most MAX_MODEL_CALLS times. Calling `conclude` ends the turn with a conclusion.
 */
import { z } from 'zod';
import {
  type Activity,
  type AgentRuntime,
  type Conclusion,
  type Emit,
  RuntimeFault,
  type ToolCall,
  type ToolResult,
  type ToolRunner,
  type TurnInput,
  type TurnResult,
} from '../agent-runtime.port';
import { modelTargetOf, type RuntimeSettings } from '../runtime-settings';
import { withSkillTools } from '../skills';
import { runNoTools } from '../tools';
import { CONCLUDE_FUNCTION, chatMessagesOf, chatMessagesOfActivity, toolsFor } from './chat-mapping';
import { streamChat } from './chat-stream';

/** Most model calls in one turn (each tool round is one more). */
export const MAX_MODEL_CALLS = 5;

export class OpenAiCompatibleRuntime implements AgentRuntime {
  readonly kind = 'openai';

  private readonly runTool: ToolRunner;

  /** `runTool` runs the model's tool calls (the tool executor); without one every call is answered as unavailable. */
  constructor(
    private readonly settings: RuntimeSettings,
    options: { runTool?: ToolRunner } = {},
  ) {
    this.runTool = options.runTool ?? runNoTools;
  }

  async runTurn(input: TurnInput, emit: Emit): Promise<TurnResult> {
    const { agent, session } = input;
    const target = modelTargetOf(this.settings, session.settings);
    const { tools, toolOf } = toolsFor(agent, input.skills);
    const messages = chatMessagesOf(agent, session.settings, input.messages, input.skills);
    const runTool = withSkillTools(this.runTool, input.skills);
    const activities: Activity[] = [];
    let seq = 0;
    let callCount = 0;
    for (let round = 0; round < MAX_MODEL_CALLS; round++) {
      emit({ type: 'AssistantThinking', value: {} });
      const streamed = await streamChat({
        target,
        messages,
        tools,
        idleMs: this.settings.idleTimeoutMs,
        signal: input.signal,
        onText: (text) => emit({ type: 'AssistantOutput', value: { seq: seq++, text } }),
      });
      const conclude = streamed.toolCalls.find((c) => c.name === CONCLUDE_FUNCTION);
      if (conclude) {
        const conclusion = conclusionOf(conclude.arguments);
        const text = streamed.text || conclusion.done.message;
        activities.push({ assistant: { text: { text } } });
        return { activities, conclusion };
      }
      if (streamed.text !== '') activities.push({ assistant: { text: { text: streamed.text } } });
      if (streamed.toolCalls.length === 0) {
        // A model that says nothing still gets an assistant activity: the turn was answered.
        if (streamed.text === '') activities.push({ assistant: { text: { text: '' } } });
        return { activities };
      }
      const calls: ToolCall[] = streamed.toolCalls.map((c) => ({
        id: c.id || `${input.turnId}-call-${callCount++}`,
        // An unknown function keeps its name: the executor refuses it as not enabled.
        name: toolOf.get(c.name) ?? c.name,
        arguments: c.arguments,
      }));
      const results: ToolResult[] = [];
      for (const call of calls) {
        const result = await runTool(call, { session, agent, signal: input.signal });
        results.push(result);
        emit({ type: 'ToolOutput', value: { toolCallId: result.toolCallId, text: result.content } });
      }
      const exchange: Activity[] = [{ assistant: { toolCalls: calls } }, { user: { toolResults: results } }];
      activities.push(...exchange);
      for (const activity of exchange) messages.push(...chatMessagesOfActivity(activity));
    }
    activities.push({ assistant: { text: { text: `Stopped after ${MAX_MODEL_CALLS} model calls without a final answer.` } } });
    return { activities };
  }
}

const concludeArguments = z.object({
  message: z.string().default(''),
  issues: z.array(z.object({ title: z.string().min(1), description: z.string().default('') })).default([]),
});

function conclusionOf(argumentsText: string): Conclusion {
  let json: unknown;
  try {
    json = JSON.parse(argumentsText || '{}');
  } catch {
    throw new RuntimeFault('the model called conclude with arguments that are not JSON', true);
  }
  const parsed = concludeArguments.safeParse(json);
  // A model that got the shape wrong may get it right when asked again.
  if (!parsed.success) throw new RuntimeFault(`the model called conclude with ${parsed.error.issues[0]?.message ?? 'bad arguments'}`, true);
  return { done: parsed.data };
}
