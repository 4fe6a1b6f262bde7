/**
 * The tool executor (issue 20): what the agent runtimes call for every tool call of a turn. It
 * applies the runtime's rules (NOT_ENABLED, write-classified tools stubbed in dry-run and incognito
 * sessions), picks the connection the call runs on from the agent's bindings, reads it from the
 * connections read model, opens its secrets (only here, per call), hands it to the adapter of its
 * type under the limits, and turns every outcome into the JSON text of a ToolResult. It never throws:
 * a failure is `{"error": CODE, "message": ...}` the model reads, and no message carries a secret.
 */
import type { RuntimeAgent, RuntimeConnectionBinding, RuntimeSession, ToolCall, ToolResult, ToolRunner } from '../agent-runtime/agent-runtime.port';
import { gatedResultOf } from '../agent-runtime/tools';
import { openSecrets, SecretBox, SecretUnavailableError } from '../../config/secrets';
import { docId } from '../../projection/projection';
import type { Doc, ReadStore } from '../../read-store/read-store.port';
import { DEFAULT_TOOL_LIMITS, type ToolAdapter, type ToolConnection, ToolError, type ToolLimits } from './tool-adapter.port';

/** Longest `arguments` text of one call. */
export const MAX_TOOL_ARGUMENTS_CHARS = 200_000;
/** Longest error message a result carries. */
const MAX_MESSAGE_CHARS = 1_000;
/** The executor gives up on an adapter this long after the call's own timeout. */
const EXECUTOR_GRACE_MS = 5_000;
/** Secrets shorter than this are not searched for in messages (a one-letter password would blank every such letter). */
const MIN_REDACTED_SECRET = 4;

export interface ToolExecutorOptions {
  reads: ReadStore;
  secrets: SecretBox;
  adapters: readonly ToolAdapter[];
  limits?: ToolLimits;
  env?: NodeJS.ProcessEnv;
  /** One line per call that failed unexpectedly (never its arguments or a secret). */
  log?: (line: string) => void;
}

/** The limits from SVC_TOOL_TIMEOUT_MS, SVC_TOOL_MAX_ROWS and SVC_TOOL_MAX_BYTES, with the port's defaults. */
export function loadToolLimits(env: NodeJS.ProcessEnv = process.env): ToolLimits {
  const read = (name: string, fallback: number) => {
    const text = env[name];
    if (!text) return fallback;
    const value = Number(text);
    if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got '${text}'`);
    return value;
  };
  return {
    ...DEFAULT_TOOL_LIMITS,
    timeoutMs: read('SVC_TOOL_TIMEOUT_MS', DEFAULT_TOOL_LIMITS.timeoutMs),
    maxRows: read('SVC_TOOL_MAX_ROWS', DEFAULT_TOOL_LIMITS.maxRows),
    maxBytes: read('SVC_TOOL_MAX_BYTES', DEFAULT_TOOL_LIMITS.maxBytes),
  };
}

/** A call that cannot run, for a reason the model may act on (the executor's own, beside ToolError's). */
class Refusal extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export class ToolExecutor {
  private readonly limits: ToolLimits;
  private readonly adapters: Map<string, ToolAdapter>;

  constructor(private readonly options: ToolExecutorOptions) {
    this.limits = options.limits ?? DEFAULT_TOOL_LIMITS;
    this.adapters = new Map(options.adapters.map((a) => [a.connectionType, a]));
  }

  /** The runtimes' ToolRunner. */
  readonly run: ToolRunner = (call, turn) => this.execute(call, turn);

  async execute(call: ToolCall, turn: { session: RuntimeSession; agent: RuntimeAgent; signal?: AbortSignal }): Promise<ToolResult> {
    const { session, agent } = turn;
    const gated = gatedResultOf(call, agent.enabledTools, session.settings);
    if (gated) return resultOf(call, gated);
    let secrets: string[] = [];
    try {
      const args = argumentsOf(call);
      const binding = connectionOf(call.name, args, agent.connections ?? []);
      delete args.connection;
      const doc = await this.options.reads.collection('connections').findOne({ _id: docId(session.org, binding.name) });
      if (!doc) throw new Refusal('FAILED_PRECONDITION', `connection '${binding.name}' is not configured in this organization`);
      const refused = (Array.isArray(doc.toolConfigurations) ? doc.toolConfigurations : []).some(
        (c: unknown) => (c as { tool?: unknown }).tool === call.name && (c as { enabled?: unknown }).enabled === false,
      );
      if (refused) throw new Refusal('NOT_ENABLED', `${call.name} is switched off on connection '${binding.name}' by its configuration`);
      const type = String(doc.connectionType ?? '');
      const adapter = this.adapters.get(type);
      if (!adapter || !adapter.tools.includes(call.name)) {
        throw new Refusal('UNAVAILABLE', `${call.name} cannot run here: this service has no executor for ${call.name} on ${type || 'this connection type'}`);
      }
      const opened = this.open(doc, binding.name);
      secrets = opened.secrets;
      const connection: ToolConnection = { name: binding.name, type, details: sectionOf(type, opened.details) };
      const content = await this.withDeadline(adapter.run(call.name, args, connection, { limits: this.limits, signal: turn.signal }), turn.signal);
      const text = JSON.stringify(content);
      // The adapters cut their results at maxBytes; this guards against one that does not.
      if (text.length > this.limits.maxBytes * 2) return resultOf(call, { error: 'INTERNAL', message: `${call.name} answered more than the ${this.limits.maxBytes}-byte cap` });
      return { toolCallId: call.id, content: redact(text, secrets) };
    } catch (error) {
      if (error instanceof ToolError || error instanceof Refusal) return resultOf(call, { error: error.code, message: redact(clip(error.message), secrets) });
      const message = redact(clip(error instanceof Error ? error.message : String(error)), secrets);
      this.options.log?.(`${session.name}: ${call.name} failed unexpectedly: ${message}`);
      return resultOf(call, { error: 'INTERNAL', message: `${call.name} failed unexpectedly: ${message}` });
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.adapters.values()].map((a) => a.close().catch(() => undefined)));
  }

  /** The connection's details with its secrets opened, and the opened values (to keep them out of messages). */
  private open(doc: Doc, name: string): { details: Record<string, unknown>; secrets: string[] } {
    const sealed = (doc.connectionDetails ?? {}) as Record<string, unknown>;
    let details: Record<string, unknown>;
    try {
      details = openSecrets(sealed, this.options.secrets, this.options.env);
    } catch (error) {
      if (error instanceof SecretUnavailableError) throw new Refusal('FAILED_PRECONDITION', `the credentials of connection '${name}' are not available: ${error.message}`);
      throw error;
    }
    const secrets: string[] = [];
    collectOpened(sealed, details, secrets);
    return { details, secrets };
  }

  private withDeadline<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
    const ms = this.limits.timeoutMs + EXECUTOR_GRACE_MS;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const stop = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ToolError('DEADLINE_EXCEEDED', `no answer within ${this.limits.timeoutMs} ms`)), ms);
      onAbort = () => reject(new ToolError('UNAVAILABLE', 'the turn was given up (the process is stopping)'));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    return Promise.race([work, stop]).finally(() => {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    });
  }
}

function resultOf(call: ToolCall, content: Record<string, unknown>): ToolResult {
  return { toolCallId: call.id, content: JSON.stringify(content) };
}

/** The call's arguments as a JSON object ('' means none). */
function argumentsOf(call: ToolCall): Record<string, unknown> {
  const text = call.arguments.trim();
  if (text === '') return {};
  if (text.length > MAX_TOOL_ARGUMENTS_CHARS) throw new Refusal('INVALID_ARGUMENT', `the arguments are longer than ${MAX_TOOL_ARGUMENTS_CHARS} characters`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Refusal('INVALID_ARGUMENT', `the arguments of ${call.name} are not JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Refusal('INVALID_ARGUMENT', `the arguments of ${call.name} must be a JSON object`);
  return parsed as Record<string, unknown>;
}

/**
 * The binding a call runs on: the one its `connection` argument names (`connections/{id}` or `{id}`),
 * else the only binding with the tool enabled; several, and the call must say which.
 */
export function connectionOf(tool: string, args: Record<string, unknown>, bindings: readonly RuntimeConnectionBinding[]): RuntimeConnectionBinding {
  const offering = bindings.filter((b) => b.enabledTools.includes(tool));
  const asked = args.connection;
  if (asked !== undefined) {
    if (typeof asked !== 'string' || asked === '') throw new Refusal('INVALID_ARGUMENT', '`connection` must be a connection name such as connections/warehouse');
    const name = asked.startsWith('connections/') ? asked : `connections/${asked}`;
    const bound = bindings.find((b) => b.name === name);
    if (!bound) throw new Refusal('INVALID_ARGUMENT', `the agent has no connection '${name}'; it has ${bindings.map((b) => b.name).join(', ') || 'none'}`);
    if (!bound.enabledTools.includes(tool)) throw new Refusal('NOT_ENABLED', `${tool} is not enabled on connection '${name}'`);
    return bound;
  }
  if (offering.length === 1) return offering[0];
  if (offering.length === 0) throw new Refusal('NOT_ENABLED', `${tool} is not enabled on any connection of this agent`);
  throw new Refusal('INVALID_ARGUMENT', `${tool} is enabled on ${offering.length} connections (${offering.map((b) => b.name).join(', ')}): say which with the "connection" argument`);
}

/** `connection_details.sqldb` of a CONNECTION_TYPE_SQLDB connection (the section named after the type). */
function sectionOf(type: string, details: Record<string, unknown>): Record<string, unknown> {
  const section = details[type.replace(/^CONNECTION_TYPE_/, '').toLowerCase()];
  return section && typeof section === 'object' && !Array.isArray(section) ? (section as Record<string, unknown>) : {};
}

/** Every string that opening changed (a sealed or referenced secret) or that a secret field holds, at any depth. */
function collectOpened(sealed: unknown, opened: unknown, into: string[], key = ''): void {
  if (typeof opened === 'string') {
    if ((opened !== sealed || SecretBox.isSecretField(key)) && opened.length >= MIN_REDACTED_SECRET) into.push(opened);
  } else if (Array.isArray(opened)) {
    opened.forEach((v, i) => collectOpened(Array.isArray(sealed) ? sealed[i] : undefined, v, into, key));
  } else if (opened && typeof opened === 'object') {
    for (const [k, v] of Object.entries(opened)) collectOpened((sealed as Record<string, unknown> | undefined)?.[k], v, into, k);
  }
}

function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join('[redacted]');
    // A secret inside JSON text appears escaped.
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret && out.includes(escaped)) out = out.split(escaped).join('[redacted]');
  }
  return out;
}

function clip(message: string): string {
  return message.length > MAX_MESSAGE_CHARS ? `${message.slice(0, MAX_MESSAGE_CHARS)}…` : message;
}
