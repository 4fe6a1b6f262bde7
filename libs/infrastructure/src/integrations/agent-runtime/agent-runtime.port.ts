/**
 * The agent runtime port (issue 9, "The agent runtime"): one turn of an agent's session. The runtime
 * reads the committed messages, streams ephemeral notifications while it works, and answers with the
 * activities to commit and, optionally, a conclusion. It appends nothing itself: the reactor commits
 * the result through the session's command path, so a runtime never needs the stores.
 * Adapters: the built-in deterministic runtime (builtin-runtime.ts, the default) and an
 * OpenAI-compatible chat-completions adapter (openai/openai-runtime.ts).
 */

export interface ToolCall {
  id: string;
  /** The tool enum value, e.g. `TOOL_SQLDB_QUERY`. */
  name: string;
  /** JSON text. */
  arguments: string;
}

export interface ToolResult {
  toolCallId: string;
  /** JSON text. */
  content: string;
}

/** The four Activity variants of spec part 2 ("Activity message"), without the Any's `@type`. */
export type Activity =
  | { user: { text: { text: string } } }
  | { user: { toolResults: ToolResult[] } }
  | { assistant: { text: { text: string } } }
  | { assistant: { toolCalls: ToolCall[] } };

export interface ProposedIssue {
  title: string;
  description: string;
}

/** DescribeSessions' `conclusion` (spec part 2, "Session description"). */
export interface Conclusion {
  done: { message: string; issues: ProposedIssue[] };
}

export interface RuntimeSessionSettings {
  dryRun: boolean;
  incognito: boolean;
  automated?: boolean;
  compatProvider?: string;
  compatModel?: string;
  compatReasoningEffort?: 'low' | 'medium' | 'high';
  /** Backtests: the RFC 3339 time the session acts at, instead of now. */
  mockTime?: string;
}

export interface RuntimeSession {
  /** `agents/{agent}/sessions/{session}`; also the notification topic. */
  name: string;
  org: string;
  settings: RuntimeSessionSettings;
}

/** One of the agent's `connections[]`: a connection it may use and the tools enabled on it. */
export interface RuntimeConnectionBinding {
  /** `connections/{id}` */
  name: string;
  enabledTools: string[];
}

export interface RuntimeAgent {
  name: string;
  prompt: string;
  /** Every tool enabled on the agent's connections (tool enum values), deduplicated. */
  enabledTools: string[];
  /** The bindings the tools run on (the tool executor picks the connection of a call from these). */
  connections?: RuntimeConnectionBinding[];
}

export interface TurnInput {
  session: RuntimeSession;
  agent: RuntimeAgent;
  /** The conversation so far, in log order: every committed message up to this turn's checkpoint, and the runtime's own. */
  messages: Activity[];
  /**
   * What this turn answers: the user messages written since the previous turn's checkpoint, up to
   * and including this turn's checkpoint write (provisional ones queued in between included).
   */
  pending: Activity[];
  /** Identifies the turn; what the turn derives (tool call IDs) derives from it, so a rerun repeats it. */
  turnId: string;
  /** Aborted when the process stops: the runtime gives up without a result. */
  signal?: AbortSignal;
  /** The skills on the session's `/run/skills` view (skills.ts); absent, the runtime offers none. */
  skills?: RuntimeSkills;
}

/** One skill a session may read: a built-in one, or one of an enabled skills bundle of the organization. */
export interface RuntimeSkill {
  name: string;
  description: string;
  /** The whole SKILL.md. */
  body: string;
  /** `builtin`, or the bundle's name (`skills-bundles/{id}`). */
  source: string;
}

/** The session's skills, and the bundles that could not be read this turn (named, with why; never a credential). */
export interface RuntimeSkills {
  skills: RuntimeSkill[];
  unavailable: Array<{ bundle: string; message: string }>;
}

/**
 * Ephemeral notifications (spec part 1, "Notification stream payloads"); never events. The reactor
 * wraps each as an Any `<type_host>/svc.nxagent.v1.<type>` on the session's topic.
 */
export type EphemeralNotification =
  | { type: 'AssistantThinking'; value: Record<string, never> }
  | { type: 'AssistantOutput'; value: { seq: number; text: string } }
  | { type: 'ToolOutput'; value: { toolCallId: string; text: string } };

export type Emit = (notification: EphemeralNotification) => void;

export interface TurnResult {
  /** In commit order: tool calls, their results, the assistant's text. */
  activities: Activity[];
  conclusion?: Conclusion;
}

/**
 * Runs one tool call of a turn (the tool executor, integrations/tools/tool-executor.ts). Never
 * throws: a failure is a result the model reads (`{"error": CODE, "message": ...}`).
 */
export type ToolRunner = (call: ToolCall, turn: { session: RuntimeSession; agent: RuntimeAgent; signal?: AbortSignal }) => Promise<ToolResult>;

export interface AgentRuntime {
  readonly kind: string;
  runTurn(input: TurnInput, emit: Emit): Promise<TurnResult>;
}

/**
 * A turn that could not be produced. `retryable` faults (a rate limit, a 5xx, a dropped or stalled
 * stream) are retried by the reactor with backoff; the others (a refused key, a provider that is not
 * configured) are answered honestly in the session, since retrying cannot help.
 */
export class RuntimeFault extends Error {
  /** The provider's Retry-After, when it gave one. */
  retryAfterMs?: number;

  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'RuntimeFault';
  }
}

/** The text of a user text activity, or null. */
export function userText(activity: Activity): string | null {
  return 'user' in activity && 'text' in activity.user ? activity.user.text.text : null;
}
