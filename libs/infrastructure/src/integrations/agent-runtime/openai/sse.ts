/**
 * Server-sent events, read linearly with bounded memory: yields the `data` of each event (its data
 * lines joined by newlines, per the WHATWG EventSource parsing rules). Chat-completions streams send
 * one JSON chunk per event and `[DONE]` last. Each byte is scanned once: a line split across chunks
 * is searched for its end only in the new part.
 */
import { RuntimeFault } from '../agent-runtime.port';

export interface SseOptions {
  /** Longest event (its data, plus the line being read) held in memory. */
  maxEventChars: number;
  /** Longest wait for the next bytes: a stream that stalls longer fails (retryable). */
  idleMs: number;
  signal?: AbortSignal;
}

export async function* sseData(body: ReadableStream<Uint8Array>, options: SseOptions): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let pending = '';
  let data: string[] = [];
  let dataChars = 0;
  try {
    for (;;) {
      const chunk = await readWithin(reader, options);
      const text = chunk === null ? decoder.decode() + '\n' : decoder.decode(chunk, { stream: true });
      let searchFrom = pending.length;
      pending += text;
      let lineStart = 0;
      for (let nl = pending.indexOf('\n', searchFrom); nl >= 0; nl = pending.indexOf('\n', searchFrom)) {
        const line = pending.slice(lineStart, nl > lineStart && pending[nl - 1] === '\r' ? nl - 1 : nl);
        lineStart = searchFrom = nl + 1;
        if (line === '') {
          if (data.length > 0) yield data.join('\n');
          data = [];
          dataChars = 0;
        } else if (line.startsWith('data:')) {
          const value = line.slice(line[5] === ' ' ? 6 : 5);
          dataChars += value.length + 1;
          if (dataChars > options.maxEventChars) throw tooLong(options);
          data.push(value);
        }
        // Comments (`:`), `event:`, `id:` and `retry:` carry nothing a chat-completions client needs.
      }
      pending = pending.slice(lineStart);
      if (pending.length + dataChars > options.maxEventChars) throw tooLong(options);
      if (chunk === null) {
        if (data.length > 0) yield data.join('\n');
        return;
      }
    }
  } finally {
    // Leaving early (an error, the consumer stopping) cancels the HTTP body instead of draining it.
    await reader.cancel().catch(() => undefined);
  }
}

function tooLong(options: SseOptions): RuntimeFault {
  return new RuntimeFault(`model stream: an event is longer than ${options.maxEventChars} characters`, false);
}

async function readWithin(reader: ReadableStreamDefaultReader<Uint8Array>, options: SseOptions): Promise<Uint8Array | null> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RuntimeFault(`model stream: no data for ${options.idleMs} ms`, true)), options.idleMs);
    onAbort = () => reject(options.signal?.reason ?? new Error('aborted'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const result = await Promise.race([reader.read(), stalled]);
    return result.done ? null : result.value;
  } finally {
    clearTimeout(timer);
    if (onAbort) options.signal?.removeEventListener('abort', onAbort);
  }
}
