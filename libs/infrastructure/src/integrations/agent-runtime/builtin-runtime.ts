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
  type ToolResult,
  type ToolRunner,
  type TurnInput,
  type TurnResult,
  userText,
} from './agent-runtime.port';
import { isSkillTool, LIST_SKILLS_TOOL, READ_SKILL_TOOL, withSkillTools } from './skills';
import { runNoTools } from './tools';

/** Longest excerpt of the user's text the reply quotes. */
export const BUILTIN_EXCERPT_CHARS = 500;
/** Most tools one turn calls, and most issues one conclusion proposes. */
export const BUILTIN_MAX_TOOL_CALLS = 8;
export const BUILTIN_MAX_ISSUES = 20;
/** Longest excerpt of a tool result the reply quotes. */
export const BUILTIN_RESULT_CHARS = 2000;

const TOOL_NAME = /\bTOOL_[A-Z0-9_]+\b/g;
/** `/tool TOOL_NAME {json arguments}` on a line of its own: a call with those arguments. */
const TOOL_LINE = /^\s*\/tool\s+(TOOL_[A-Z0-9_]+)([\s\S]*)$/;
/** `/skills` lists the session's skills; `/skill NAME` reads one (the `/run/skills` view, skills.ts). */
const SKILL_LINE = /^\s*\/skill(s?)(?:\s+(\S{1,200}))?\s*$/;
const CONCLUDE = /\bconclude\b/i;
const ISSUE_LINE = /^\s*issue:(.*)$/i;

export interface BuiltinRuntimeOptions {
  /** Runs the turn's tool calls (the tool executor); without one every call is answered as unavailable. */
  runTool?: ToolRunner;
}

export class BuiltinRuntime implements AgentRuntime {
  readonly kind = 'builtin';
  private readonly runTool: ToolRunner;

  constructor(options: BuiltinRuntimeOptions = {}) {
    this.runTool = options.runTool ?? runNoTools;
  }

  async runTurn(input: TurnInput, emit: Emit): Promise<TurnResult> {
    const text = newUserText(input.pending);
    const named = toolCallsIn(text);
    // The skill tools are every session's (they only read the turn's skills); the others, the agent's.
    const allowed = (name: string) => isSkillTool(name) || input.agent.enabledTools.includes(name);
    const enabled = named.filter((call) => allowed(call.name)).slice(0, BUILTIN_MAX_TOOL_CALLS);
    const refused = named.filter((call) => !allowed(call.name)).map((call) => call.name);
    const runTool = withSkillTools(this.runTool, input.skills);

    const activities: Activity[] = [];
    const lines = [text.trim() === '' ? 'Nothing new to answer.' : `You said: ${excerpt(text)}`];
    emit({ type: 'AssistantThinking', value: {} });
    if (enabled.length > 0) {
      const calls: ToolCall[] = enabled.map((call, i) => ({ id: `${input.turnId}-call-${i}`, name: call.name, arguments: call.arguments }));
      const results: ToolResult[] = [];
      // One after another: the notifications and the reply keep the order of the calls.
      for (const call of calls) {
        const result = await runTool(call, { session: input.session, agent: input.agent, signal: input.signal });
        results.push(result);
        emit({ type: 'ToolOutput', value: { toolCallId: result.toolCallId, text: result.content } });
      }
      activities.push({ assistant: { toolCalls: calls } }, { user: { toolResults: results } });
      for (const [i, result] of results.entries()) lines.push(`${calls[i].name}: ${outcomeOf(result.content)}`);
      // A second "model call" reads the tool results, as a real model would.
      emit({ type: 'AssistantThinking', value: {} });
    }
    for (const tool of new Set(refused)) lines.push(`${tool} is not enabled for this agent.`);

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

/**
 * The calls a message asks for, in order: each `/tool TOOL_NAME {json}` line is a call with those
 * arguments (`{}` when the line has none); any other tool enum value named in the text is a call
 * with no arguments, once per tool and only when no `/tool` line names it.
 */
function toolCallsIn(text: string): Array<{ name: string; arguments: string }> {
  const explicit: Array<{ name: string; arguments: string; line: number }> = [];
  const mentioned = new Map<string, number>();
  for (const [line, content] of text.split('\n').entries()) {
    const skill = SKILL_LINE.exec(content);
    if (skill) {
      // `/skills` lists; `/skill NAME` reads; `/skill` alone lists too.
      const read = skill[1] === '' && skill[2] !== undefined;
      explicit.push(read ? { name: READ_SKILL_TOOL, arguments: JSON.stringify({ name: skill[2] }), line } : { name: LIST_SKILLS_TOOL, arguments: '{}', line });
      continue;
    }
    const match = TOOL_LINE.exec(content);
    // The name ends at a blank: `/tool TOOL_Xyz` is not a call of TOOL_X.
    if (match && (match[2] === '' || /^\s/.test(match[2]))) {
      explicit.push({ name: match[1], arguments: match[2].trim() || '{}', line });
      continue;
    }
    for (const name of content.match(TOOL_NAME) ?? []) if (!mentioned.has(name)) mentioned.set(name, line);
  }
  const withArguments = new Set(explicit.map((c) => c.name));
  const bare = [...mentioned].filter(([name]) => !withArguments.has(name)).map(([name, line]) => ({ name, arguments: '{}', line }));
  return [...explicit, ...bare].sort((a, b) => a.line - b.line).map(({ name, arguments: args }) => ({ name, arguments: args }));
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > BUILTIN_EXCERPT_CHARS ? `${flat.slice(0, BUILTIN_EXCERPT_CHARS)}…` : flat;
}

/** How the reply reports a result: stubbed, the error and its message, or the result itself (cut). */
function outcomeOf(content: string): string {
  const parsed = JSON.parse(content) as { stubbed?: boolean; error?: string; message?: string };
  if (parsed.stubbed) return 'stubbed (not run).';
  if (typeof parsed.error === 'string') return `${parsed.error}: ${parsed.message ?? ''}`.trim();
  return content.length > BUILTIN_RESULT_CHARS ? `${content.slice(0, BUILTIN_RESULT_CHARS)}…` : content;
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
