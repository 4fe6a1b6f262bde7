/**
 * One streaming chat-completions call: POST `<base>/chat/completions` with `stream: true`, then the
 * SSE chunks read linearly: text deltas go out as they arrive, tool calls are assembled from their
 * fragments (by `index`; the id and name come once, the arguments in pieces). Every buffer is
 * bounded; an HTTP or stream failure is a RuntimeFault saying whether a retry can help.
 */
import { z } from 'zod';
import { RuntimeFault } from '../agent-runtime.port';
import type { ModelTarget } from '../runtime-settings';
import type { ChatMessage, FunctionTool } from './chat-mapping';
import { sseData } from './sse';

export const MAX_EVENT_CHARS = 1024 * 1024;
export const MAX_REPLY_CHARS = 256 * 1024;
export const MAX_TOOL_CALLS_PER_CALL = 16;
export const MAX_TOOL_ARGUMENT_CHARS = 64 * 1024;
const MAX_ERROR_BODY_BYTES = 4096;

const chunkSchema = z.object({
  choices: z
    .array(
      z.object({
        index: z.number().int().optional(),
        delta: z
          .object({
            content: z.string().nullish(),
            tool_calls: z
              .array(
                z.object({
                  index: z.number().int().min(0),
                  id: z.string().nullish(),
                  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
                }),
              )
              .nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  error: z.object({ message: z.string().optional() }).passthrough().nullish(),
});

export interface StreamedCall {
  text: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
}

export interface ChatRequest {
  target: ModelTarget;
  messages: ChatMessage[];
  tools: FunctionTool[];
  idleMs: number;
  signal?: AbortSignal;
  /** Each text delta, in order. */
  onText: (delta: string) => void;
}

export async function streamChat(request: ChatRequest): Promise<StreamedCall> {
  const { target } = request;
  const body = {
    model: target.model,
    stream: true,
    messages: request.messages,
    ...(request.tools.length > 0 ? { tools: request.tools } : {}),
    ...(target.reasoningEffort ? { reasoning_effort: target.reasoningEffort } : {}),
  };
  let response: Response;
  try {
    response = await fetch(`${target.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        ...(target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {}),
      },
      body: JSON.stringify(body),
      signal: request.signal,
    });
  } catch (error) {
    if (request.signal?.aborted) throw error;
    throw new RuntimeFault(`model provider '${target.provider}' unreachable: ${(error as Error).message}`, true);
  }
  if (!response.ok || !response.body) throw await httpFault(response, target.provider);

  let text = '';
  const calls: Array<{ id: string; name: string; arguments: string }> = [];
  for await (const data of sseData(response.body, { maxEventChars: MAX_EVENT_CHARS, idleMs: request.idleMs, signal: request.signal })) {
    if (data === '[DONE]') break;
    const chunk = parseChunk(data);
    if (chunk.error) throw new RuntimeFault(`model provider '${target.provider}' failed mid-stream: ${chunk.error.message ?? 'error'}`, true);
    // One completion is asked for (no `n`): only choice 0 counts.
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
    const delta = choice?.delta;
    if (delta?.content) {
      text += delta.content;
      if (text.length > MAX_REPLY_CHARS) throw new RuntimeFault(`model reply longer than ${MAX_REPLY_CHARS} characters`, false);
      request.onText(delta.content);
    }
    for (const fragment of delta?.tool_calls ?? []) {
      if (fragment.index >= MAX_TOOL_CALLS_PER_CALL) throw new RuntimeFault(`model asked for more than ${MAX_TOOL_CALLS_PER_CALL} tool calls at once`, false);
      const call = (calls[fragment.index] ??= { id: '', name: '', arguments: '' });
      if (fragment.id) call.id = fragment.id;
      if (fragment.function?.name) call.name += fragment.function.name;
      if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
      if (call.arguments.length > MAX_TOOL_ARGUMENT_CHARS) {
        throw new RuntimeFault(`tool call arguments longer than ${MAX_TOOL_ARGUMENT_CHARS} characters`, false);
      }
    }
  }
  // A sparse index (0 then 2) leaves holes: they were never calls.
  return { text, toolCalls: calls.filter((c) => c !== undefined) };
}

function parseChunk(data: string): z.infer<typeof chunkSchema> {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw new RuntimeFault(`model stream: a chunk is not JSON: ${data.slice(0, 100)}`, true);
  }
  const parsed = chunkSchema.safeParse(json);
  if (!parsed.success) throw new RuntimeFault(`model stream: unexpected chunk: ${parsed.error.issues[0]?.message ?? ''}`, true);
  return parsed.data;
}

/** 408, 409, 429 and 5xx are worth retrying; the rest (a refused key, a bad model) are not. */
async function httpFault(response: Response, provider: string): Promise<RuntimeFault> {
  const status = response.status;
  const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
  const detail = await boundedText(response);
  const fault = new RuntimeFault(`model provider '${provider}' answered HTTP ${status}${detail ? `: ${detail}` : ''}`, retryable);
  const retryAfter = Number(response.headers.get('retry-after'));
  if (retryable && Number.isFinite(retryAfter) && retryAfter > 0) fault.retryAfterMs = Math.min(retryAfter, 300) * 1000;
  return fault;
}

async function boundedText(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < MAX_ERROR_BODY_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      size += value.length;
    }
  } catch {
    // The reason is the status; the body is only a detail.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const text = Buffer.concat(parts).subarray(0, MAX_ERROR_BODY_BYTES).toString('utf8');
  return text.replace(/\s+/g, ' ').trim().slice(0, 300);
}
