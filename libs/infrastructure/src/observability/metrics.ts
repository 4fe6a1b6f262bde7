import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The one metrics registry of a process and the metrics the shared mechanisms record. Labels are
 * bounded sets (method names from the catalog, status codes, projection names): never an
 * organization, a resource name or anything a caller chooses (docs/operations.md, "Metrics").
 */
export const metricsRegistry = new Registry();
// Process CPU, memory, event-loop lag and GC: computed when scraped, nothing per request.
collectDefaultMetrics({ register: metricsRegistry });
// Gauges named `_total` (a counter's suffix): `promtool check metrics` refuses them. The same
// figures stay as `nodejs_active_handles`, `nodejs_active_requests` and `nodejs_active_resources`.
for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
  metricsRegistry.removeSingleMetric(name);
}

export const httpRequestDuration = new Histogram({
  name: 'svc_http_request_duration_seconds',
  help: 'HTTP request latency by RPC method (or route) and status code',
  labelNames: ['method', 'status'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [],
});

export const appendConflicts = new Counter({
  name: 'svc_append_conflicts_total',
  help: 'Appends refused because the stream moved (wrong expected revision)',
  registers: [metricsRegistry],
});

export const commandRetries = new Counter({
  name: 'svc_command_retries_total',
  help: 'Commands decided again after an append conflict',
  registers: [metricsRegistry],
});

export const commandsAborted = new Counter({
  name: 'svc_commands_aborted_total',
  help: 'Commands answered ABORTED after too many conflicts',
  registers: [metricsRegistry],
});

export const readWaitDuration = new Histogram({
  name: 'svc_read_wait_seconds',
  help: "Read-your-writes waits for a projection, by outcome (reached, or timeout when the projection had not got there)",
  labelNames: ['outcome'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [],
});

export const sseSubscribers = new Gauge({
  name: 'svc_sse_subscribers',
  help: 'Server-sent event streams open in this process',
  registers: [],
});

export const sseSlowConsumers = new Counter({
  name: 'svc_sse_slow_consumers_total',
  help: 'Server-sent event streams ended because the client fell behind, by the limit it passed (stream, process, catch_up)',
  labelNames: ['limit'] as const,
  registers: [],
});

export const sseRefused = new Counter({
  name: 'svc_sse_refused_total',
  help: 'Server-sent event streams refused RESOURCE_EXHAUSTED before opening, by the limit (organization, member, process, buffer_budget)',
  labelNames: ['limit'] as const,
  registers: [],
});

export const rateLimited = new Counter({
  name: 'svc_rate_limited_total',
  help: 'Requests answered RESOURCE_EXHAUSTED by the per-organization rate limit',
  registers: [],
});

/**
 * API key pairs checked outside the cache of verified pairs. The outcomes never tell an unknown key
 * username from a wrong secret: both are `refused` (the metrics are public).
 */
export const authVerifications = new Counter({
  name: 'svc_auth_verifications_total',
  help:
    'API key pairs checked outside the verified cache, by outcome: accepted or refused (a slow hash ran), ' +
    'refused_cached (a pair that failed recently, no hash), limited (429: too many failures for the key or the address), ' +
    'busy (503: too many hashes waiting)',
  labelNames: ['outcome'] as const,
  registers: [],
});

/**
 * Series only the api records (requests, read waits, event streams, rate limits, sign-ins). They are
 * created unregistered and the api registers them: a projector's /metrics does not export them as zeros.
 */
let apiMetricsRegistered = false;

/** Called by the api; later calls do nothing (the registry refuses a name twice). */
export function registerApiMetrics(): void {
  if (apiMetricsRegistered) return;
  apiMetricsRegistered = true;
  // One call each: their label sets differ, so they share no array type prom-client accepts.
  metricsRegistry.registerMetric(httpRequestDuration);
  metricsRegistry.registerMetric(readWaitDuration);
  metricsRegistry.registerMetric(sseSubscribers);
  metricsRegistry.registerMetric(sseSlowConsumers);
  metricsRegistry.registerMetric(sseRefused);
  metricsRegistry.registerMetric(rateLimited);
  metricsRegistry.registerMetric(authVerifications);
}

/** The text `GET /metrics` answers, and its content type. */
export async function metricsText(): Promise<{ contentType: string; body: string }> {
  return { contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
}
