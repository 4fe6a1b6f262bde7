/**
 * The agent runtime's settings, from the environment (docs/operations.md, "Agent runtime"). Checked
 * at start: a wrong value stops the process with a message naming the variable.
 */
import { RuntimeFault, type RuntimeSessionSettings } from './agent-runtime.port';

export interface ProviderEndpoint {
  baseUrl: string;
  apiKey?: string;
}

export interface RuntimeSettings {
  /** Which adapter answers every session: the built-in runtime or the OpenAI-compatible one; `off` runs no turns. */
  runtime: 'builtin' | 'openai' | 'off';
  /** The default provider (SVC_MODEL_BASE_URL, SVC_MODEL_API_KEY) and model (SVC_MODEL). */
  defaultEndpoint?: ProviderEndpoint;
  defaultModel?: string;
  /** Named providers a session selects with compat_provider: SVC_PROVIDER_<NAME>_BASE_URL / _API_KEY. */
  providers: Map<string, ProviderEndpoint>;
  /** Longest silence of a model stream before the call fails (retryable). */
  idleTimeoutMs: number;
  /** Turns of different sessions run at once in one projector. */
  concurrency: number;
}

const PROVIDER_VAR = /^SVC_PROVIDER_([A-Z0-9_]+)_BASE_URL$/;

export function loadRuntimeSettings(env: NodeJS.ProcessEnv = process.env): RuntimeSettings {
  const runtime = env.SVC_AGENT_RUNTIME || 'builtin';
  if (runtime !== 'builtin' && runtime !== 'openai' && runtime !== 'off') {
    throw new Error(`SVC_AGENT_RUNTIME must be builtin, openai or off, got '${runtime}'`);
  }
  const providers = new Map<string, ProviderEndpoint>();
  for (const [name, value] of Object.entries(env)) {
    const match = PROVIDER_VAR.exec(name);
    if (!match || !value) continue;
    providers.set(match[1], { baseUrl: checkUrl(name, value), apiKey: env[`SVC_PROVIDER_${match[1]}_API_KEY`] || undefined });
  }
  const baseUrl = env.SVC_MODEL_BASE_URL;
  const idle = env.SVC_MODEL_IDLE_TIMEOUT_MS;
  const idleTimeoutMs = idle ? Number(idle) : 60_000;
  if (!Number.isInteger(idleTimeoutMs) || idleTimeoutMs <= 0) throw new Error(`SVC_MODEL_IDLE_TIMEOUT_MS must be a positive integer, got '${idle}'`);
  const concurrency = env.SVC_RUNTIME_CONCURRENCY ? Number(env.SVC_RUNTIME_CONCURRENCY) : 4;
  if (!Number.isInteger(concurrency) || concurrency <= 0) throw new Error(`SVC_RUNTIME_CONCURRENCY must be a positive integer, got '${env.SVC_RUNTIME_CONCURRENCY}'`);
  return {
    runtime,
    concurrency,
    defaultEndpoint: baseUrl ? { baseUrl: checkUrl('SVC_MODEL_BASE_URL', baseUrl), apiKey: env.SVC_MODEL_API_KEY || undefined } : undefined,
    defaultModel: env.SVC_MODEL || undefined,
    providers,
    idleTimeoutMs,
  };
}

/** `compat_provider` names a provider: upper-cased, every character outside A-Z and 0-9 becomes `_`. */
export function providerKey(provider: string): string {
  return provider.toUpperCase().replace(/[^A-Z0-9]/g, '_');
}

export interface ModelTarget extends ProviderEndpoint {
  model: string;
  reasoningEffort?: string;
  /** For messages: `default` or the compat_provider asked for. */
  provider: string;
}

/** Where a session's turn goes; a provider or model that is not configured is not worth retrying. */
export function modelTargetOf(settings: RuntimeSettings, session: RuntimeSessionSettings): ModelTarget {
  let endpoint = settings.defaultEndpoint;
  let provider = 'default';
  if (session.compatProvider) {
    provider = session.compatProvider;
    endpoint = settings.providers.get(providerKey(session.compatProvider));
    if (!endpoint) {
      throw new RuntimeFault(`model provider '${provider}' is not configured (SVC_PROVIDER_${providerKey(provider)}_BASE_URL)`, false);
    }
  }
  if (!endpoint) throw new RuntimeFault('no model provider is configured (SVC_MODEL_BASE_URL)', false);
  const model = session.compatModel || settings.defaultModel;
  if (!model) throw new RuntimeFault('no model is configured (SVC_MODEL, or the session\'s compat_model)', false);
  return { ...endpoint, model, provider, ...(session.compatReasoningEffort ? { reasoningEffort: session.compatReasoningEffort } : {}) };
}

function checkUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name} must be an http(s) URL, got '${value}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${name} must be an http(s) URL, got '${value}'`);
  return value.replace(/\/+$/, '');
}
