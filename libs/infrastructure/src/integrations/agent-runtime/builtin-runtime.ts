/**
 * The built-in runtime: deterministic, so tests and backtests can rely on what it answers. Its rules
 * are the contract documented in docs/operations.md ("Agent runtime"); each has a test in
 * builtin-runtime.spec.ts. Everything it says is derived from the turn's input alone.
 */
import {
  type Activity,
  type AgentRuntime,
  type Conclusion,
  type Emit,
  type ProposedIssue,
  type ToolCall,
  type TurnInput,
  type TurnResult,
  userText,
} from './agent-runtime.port';
import { toolResultOf } from './tools';

/** Longest excerpt of the user's text the reply quotes. */
export const BUILTIN_EXCERPT_CHARS = 500;
/** Most tools one turn calls, and most issues one conclusion proposes. */
export const BUILTIN_MAX_TOOL_CALLS = 8;
export const BUILTIN_MAX_ISSUES = 20;

const TOOL_NAME = /\bTOOL_[A-Z0-9_]+\b/g;
const CONCLUDE = /\bconclude\b/i;
const ISSUE_LINE = /^\s*issue:(.*)$/i;

export class BuiltinRuntime implements AgentRuntime {
  readonly kind = 'builtin';

  async runTurn(input: TurnInput, emit: Emit): Promise<TurnResult> {
    const text = newUserText(input.pending);
    const named = toolsNamedIn(text);
    const enabled = named.filter((tool) => input.agent.enabledTools.includes(tool)).slice(0, BUILTIN_MAX_TOOL_CALLS);
    const refused = named.filter((tool) => !input.agent.enabledTools.includes(tool));

    const activities: Activity[] = [];
    const lines = [text.trim() === '' ? 'Nothing new to answer.' : `You said: ${excerpt(text)}`];
    emit({ type: 'AssistantThinking', value: {} });
    if (enabled.length > 0) {
      const calls: ToolCall[] = enabled.map((name, i) => ({ id: `${input.turnId}-call-${i}`, name, arguments: '{}' }));
      const results = calls.map((call) => toolResultOf(call, input.agent.enabledTools, input.session.settings));
      activities.push({ assistant: { toolCalls: calls } }, { user: { toolResults: results } });
      for (const [i, result] of results.entries()) {
        emit({ type: 'ToolOutput', value: { toolCallId: result.toolCallId, text: result.content } });
        lines.push(`${calls[i].name}: ${outcomeOf(result.content)}.`);
      }
      // A second "model call" reads the tool results, as a real model would.
      emit({ type: 'AssistantThinking', value: {} });
    }
    for (const tool of refused) lines.push(`${tool} is not enabled for this agent.`);

    const conclusion = CONCLUDE.test(text) ? conclusionOf(text) : undefined;
    if (conclusion) lines.push(`Concluded with ${conclusion.done.issues.length} proposed issue(s).`);
    const reply = lines.join('\n');
    for (const [seq, delta] of deltasOf(reply).entries()) emit({ type: 'AssistantOutput', value: { seq, text: delta } });
    activities.push({ assistant: { text: { text: reply } } });
    if (conclusion) conclusion.done.message = reply;
    return conclusion ? { activities, conclusion } : { activities };
  }
}

/** The text of the user text messages among those the turn answers, joined by newlines. */
export function newUserText(pending: readonly Activity[]): string {
  const texts: string[] = [];
  for (const activity of pending) {
    const text = userText(activity);
    if (text !== null) texts.push(text);
  }
  return texts.join('\n');
}

/** Tool enum values named in the text, in order of first mention, each once. */
function toolsNamedIn(text: string): string[] {
  return [...new Set(text.match(TOOL_NAME) ?? [])];
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > BUILTIN_EXCERPT_CHARS ? `${flat.slice(0, BUILTIN_EXCERPT_CHARS)}…` : flat;
}

function outcomeOf(content: string): string {
  const parsed = JSON.parse(content) as { stubbed?: boolean; error?: string };
  return parsed.stubbed ? 'stubbed (not run)' : parsed.error === 'UNAVAILABLE' ? 'unavailable in this runtime' : 'refused';
}

/** `issue: <title> | <description>` lines propose issues; a line with an empty title proposes none. */
function conclusionOf(text: string): Conclusion {
  const issues: ProposedIssue[] = [];
  for (const line of text.split('\n')) {
    const match = ISSUE_LINE.exec(line);
    if (!match) continue;
    const bar = match[1].indexOf('|');
    const title = (bar < 0 ? match[1] : match[1].slice(0, bar)).trim();
    const description = bar < 0 ? '' : match[1].slice(bar + 1).trim();
    if (title !== '') issues.push({ title, description });
    if (issues.length === BUILTIN_MAX_ISSUES) break;
  }
  return { done: { message: '', issues } };
}

/** Word by word (each word with the whitespace after it): the deltas concatenate to the reply. */
export function deltasOf(reply: string): string[] {
  return reply.match(/\s+|\S+\s*/g) ?? [];
}
