/**
 * Between the session's activities and the chat-completions wire: the conversation as chat
 * messages, and the agent's enabled tools as function definitions (plus `conclude`, through which
 * the model ends the session with a conclusion).
 */
import type { Activity, RuntimeAgent, RuntimeSessionSettings, RuntimeSkills } from '../agent-runtime.port';
import { LIST_SKILLS_TOOL, READ_SKILL_TOOL, skillsCatalog } from '../skills';

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface FunctionTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export const CONCLUDE_FUNCTION = 'conclude';

const str = (description: string) => ({ type: 'string', description });
const params = (properties: Record<string, unknown>, required: string[] = Object.keys(properties)) => ({
  type: 'object',
  properties,
  required,
});

/** What the model is told about each tool. A tool missing here still gets an open argument object. */
const TOOL_SCHEMAS: Record<string, { description: string; parameters: Record<string, unknown> }> = {
  TOOL_SQLDB_QUERY: {
    description: 'Run one read-only SQL statement on the connected database (rows and bytes are capped; `truncated` says what was cut).',
    parameters: params({ sql: str('one SQL statement') }),
  },
  TOOL_SQLDB_LIST_TABLES: { description: 'List the tables of the connected database.', parameters: params({}) },
  TOOL_SQLDB_DESCRIBE_TABLE: { description: 'Describe the columns of one table.', parameters: params({ table: str('table name') }) },
  TOOL_PROMQL_QUERY: { description: 'Evaluate a PromQL instant query.', parameters: params({ query: str('PromQL'), time: str('RFC 3339, optional') }, ['query']) },
  TOOL_PROMQL_QUERY_RANGE: {
    description: 'Evaluate a PromQL range query.',
    parameters: params({ query: str('PromQL'), start: str('RFC 3339'), end: str('RFC 3339'), step: str('duration such as 60s') }),
  },
  TOOL_PROMQL_LIST_METRICS: { description: 'List metric names.', parameters: params({ match: str('series selector, optional') }, []) },
  TOOL_HTTP_REQUEST: { description: 'Call the connected HTTP API.', parameters: params({ method: str('HTTP method'), path: str('path and query'), body: str('request body, optional') }, ['method', 'path']) },
  TOOL_CODEHOST_READ_FILE: {
    description: 'Read a text file of a repository (cut at the byte cap; `truncated` says so).',
    parameters: params({ repository: str('owner/repo'), path: str('file path'), ref: str('branch, tag or sha; default: the default branch') }, ['repository', 'path']),
  },
  TOOL_CODEHOST_LIST_DIRECTORY: {
    description: "List a directory of a repository (names, paths, 'file' or 'dir').",
    parameters: params({ repository: str('owner/repo'), path: str('directory; default: the root'), ref: str('branch, tag or sha; default: the default branch') }, ['repository']),
  },
  TOOL_CODEHOST_SEARCH: {
    description: "Search a repository's default branch for a text (exact, case-insensitive): the matching lines or fragments.",
    parameters: params({ repository: str('owner/repo'), query: str('the text to find'), path: str('only under this path, optional'), limit: { type: 'integer', description: 'most matches (default 30, at most 100)' } }, ['repository', 'query']),
  },
  TOOL_CODEHOST_LIST_COMMITS: {
    description: 'List commits newest first: those of a ref, or those of `ref` not in `base` (what a deployment shipped).',
    parameters: params({ repository: str('owner/repo'), ref: str('branch, tag or sha; default: the default branch'), base: str('sha or ref, optional'), limit: { type: 'integer', description: 'most commits (default 20, at most 100)' } }, ['repository']),
  },
  TOOL_CHAT_POST_MESSAGE: { description: 'Post a message to a chat channel.', parameters: params({ channel: str('channel'), text: str('message') }) },
  TOOL_PAGER_CREATE_INCIDENT: {
    description: 'Open an incident on the pager (pages whoever is on call).',
    parameters: params(
      { title: str('title'), description: str('details, optional'), severity: str('critical, error (default), warning or info'), dedup_key: str('the same key pages once, optional') },
      ['title'],
    ),
  },
  TOOL_TRACKER_CREATE_TICKET: {
    description: 'Open a ticket in the tracker.',
    parameters: params({ title: str('title'), description: str('the ticket body in Markdown, optional'), labels: { type: 'array', items: { type: 'string' }, description: 'label names, optional' } }, ['title']),
  },
};

const CONCLUDE_TOOL: FunctionTool = {
  type: 'function',
  function: {
    name: CONCLUDE_FUNCTION,
    description: 'End the session with a conclusion: a summary message and the issues you propose (possibly none).',
    parameters: params({
      message: str('the conclusion'),
      issues: { type: 'array', items: params({ title: str('issue title'), description: str('issue description') }) },
    }),
  },
};

/** The `/run/skills` view (../skills.ts), offered when the turn has skills; their function names are their tool names. */
const SKILL_TOOLS: FunctionTool[] = [
  {
    type: 'function',
    function: { name: READ_SKILL_TOOL, description: 'Read one skill of /run/skills (its whole SKILL.md) by name.', parameters: params({ name: str('the skill name, as the system message lists them') }) },
  },
  { type: 'function', function: { name: LIST_SKILLS_TOOL, description: 'List the skills of /run/skills: names, descriptions, sources.', parameters: params({}) } },
];

/** `TOOL_SQLDB_QUERY` is offered as `sqldb_query` (function names are `^[a-zA-Z0-9_-]{1,64}$`). */
export function functionNameOf(tool: string): string {
  return tool.replace(/^TOOL_/, '').toLowerCase();
}

/** The function definitions of a turn, and the way back from a function name to its tool. */
export function toolsFor(agent: RuntimeAgent, skills?: RuntimeSkills): { tools: FunctionTool[]; toolOf: Map<string, string> } {
  const toolOf = new Map<string, string>();
  const tools: FunctionTool[] = [];
  for (const tool of agent.enabledTools) {
    const name = functionNameOf(tool);
    toolOf.set(name, tool);
    const schema = TOOL_SCHEMAS[tool] ?? { description: tool, parameters: { type: 'object' } };
    tools.push({ type: 'function', function: { name, ...schema, parameters: withConnection(schema.parameters, tool, agent) } });
  }
  return { tools: [...tools, ...(skills ? SKILL_TOOLS : []), CONCLUDE_TOOL], toolOf };
}

/**
 * A tool enabled on several of the agent's connections takes a `connection` argument naming one
 * (the tool executor refuses the call without it); on one connection it needs none.
 */
function withConnection(parameters: Record<string, unknown>, tool: string, agent: RuntimeAgent): Record<string, unknown> {
  const names = (agent.connections ?? []).filter((b) => b.enabledTools.includes(tool)).map((b) => b.name);
  if (names.length < 2) return parameters;
  const properties = (parameters.properties ?? {}) as Record<string, unknown>;
  const required = Array.isArray(parameters.required) ? (parameters.required as string[]) : [];
  return { ...parameters, properties: { ...properties, connection: { type: 'string', enum: names, description: 'the connection to run on' } }, required: [...required, 'connection'] };
}

/** The session so far as chat messages: the agent's prompt (a backtest's clock, the skills catalog) first. */
export function chatMessagesOf(agent: RuntimeAgent, settings: RuntimeSessionSettings, activities: readonly Activity[], skills?: RuntimeSkills): ChatMessage[] {
  const system = [agent.prompt, settings.mockTime ? `The current time is ${settings.mockTime}.` : '', skillsCatalog(skills)].filter((s) => s !== '').join('\n\n');
  const messages: ChatMessage[] = system === '' ? [] : [{ role: 'system', content: system }];
  for (const activity of activities) messages.push(...chatMessagesOfActivity(activity));
  return messages;
}

export function chatMessagesOfActivity(activity: Activity): ChatMessage[] {
  if ('user' in activity) {
    if ('text' in activity.user) return [{ role: 'user', content: activity.user.text.text }];
    if ('toolResults' in activity.user) {
      return activity.user.toolResults.map((r) => ({ role: 'tool' as const, tool_call_id: r.toolCallId, content: r.content }));
    }
  } else if ('assistant' in activity) {
    if ('text' in activity.assistant) return [{ role: 'assistant', content: activity.assistant.text.text }];
    if ('toolCalls' in activity.assistant) {
      const calls = activity.assistant.toolCalls.map((c) => ({
        id: c.id,
        type: 'function' as const,
        function: { name: functionNameOf(c.name), arguments: c.arguments },
      }));
      return [{ role: 'assistant', content: null, tool_calls: calls }];
    }
  }
  return []; // variants beyond the four the spec shows carry nothing for the model
}
