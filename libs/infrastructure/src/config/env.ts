import * as path from 'node:path';
import { checkEncryptionKey } from './secrets';

/** Process settings from the environment; every default runs the embedded (SQLite) mode. */
export interface Settings {
  host: string;
  port: number;
  dataDir: string;
  eventStoreUrl?: string;
  mongoUrl?: string;
  configFile?: string;
  typeHost: string;
  /** How `npm start` runs the projector: a child process, inside the api process, or not at all. */
  projectorMode: 'process' | 'inprocess' | 'off';
  /** Upper bound on how long a command waits for its projection before answering (read your writes). */
  readWaitMs: number;
  bodyLimitBytes: number;
  projectorHealthPort: number;
  /** Per-organization request rate of one api process (token bucket; 0: no limit) and its burst. */
  rateLimit: { perSecond: number; burst: number };
  /** Uploaded artifact bytes an organization may hold (SVC_ARTIFACT_QUOTA_BYTES, 10 GiB). */
  artifactQuotaBytes: number;
  /** How long an upload no investigation references is held (SVC_ARTIFACT_UPLOAD_TTL_S, one day). */
  artifactUploadTtlMs: number;
  /** History and as-of reads running at once: per organization (SVC_HISTORY_READS_PER_ORG, 2) and in the process (SVC_HISTORY_READS, 4). */
  historyReads: { perOrg: number; total: number };
  /** How often the projector expires due uploads and reclaims their bytes (SVC_ARTIFACT_SWEEP_MS, one minute). */
  artifactSweepMs: number;
  /** Bounds on verifying API key pairs outside the verified cache (apps/api/src/auth/auth-limits.ts). */
  authLimits: AuthLimitSettings;
  /** Timeouts of the HTTP server (apps/api/src/http/fastify.ts). */
  http: HttpTimeouts;
}

export interface AuthLimitSettings {
  /** Slow hashes (scrypt, in libuv's pool of 4 threads) running at once in this process. */
  hashConcurrency: number;
  /** Verifications waiting for one of those; past it the request is answered UNAVAILABLE at once. */
  hashQueue: number;
  /** Failed attempts per key username, per minute (token bucket, burst of the same size; 0: no limit). */
  failuresPerKeyPerMinute: number;
  /** Failed attempts per client address, per minute (as above). */
  failuresPerAddressPerMinute: number;
  /** How long a failed pair is answered from memory without hashing again (0: not remembered). */
  failedPairCacheMs: number;
}

export interface HttpTimeouts {
  /** The whole request head must arrive within this (Node's headersTimeout). */
  headersTimeoutMs: number;
  /** A socket with no traffic either way for this long is closed (Fastify's connectionTimeout). */
  idleTimeoutMs: number;
  /** The whole request, body included, must arrive within this (Node's requestTimeout; 0: no limit). */
  requestTimeoutMs: number;
}

/** The settings, checked: a process with a wrong setting stops at start with a message naming it. */
export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const mode = env.SVC_PROJECTOR ?? 'process';
  if (mode !== 'process' && mode !== 'inprocess' && mode !== 'off') {
    throw new Error(`SVC_PROJECTOR must be process, inprocess or off, got '${mode}'`);
  }
  checkEncryptionKey(env);
  return {
    host: env.HOST ?? '127.0.0.1',
    port: intSetting(env, 'PORT', 8080),
    dataDir: path.resolve(env.SVC_DATA_DIR ?? './data'),
    eventStoreUrl: env.EVENTSTORE_URL || undefined,
    mongoUrl: env.MONGODB_URL || undefined,
    configFile: env.SVC_CONFIG || undefined,
    typeHost: env.SVC_TYPE_HOST ?? 'type.googleapis.com',
    projectorMode: mode,
    readWaitMs: intSetting(env, 'SVC_READ_WAIT_MS', 5000),
    bodyLimitBytes: intSetting(env, 'SVC_BODY_LIMIT_BYTES', 1024 * 1024),
    projectorHealthPort: intSetting(env, 'PROJECTOR_PORT', 0),
    rateLimit: rateLimitSettings(env),
    artifactQuotaBytes: intSetting(env, 'SVC_ARTIFACT_QUOTA_BYTES', 10 * 1024 ** 3),
    artifactUploadTtlMs: intSetting(env, 'SVC_ARTIFACT_UPLOAD_TTL_S', 24 * 60 * 60) * 1000,
    historyReads: { perOrg: Math.max(1, intSetting(env, 'SVC_HISTORY_READS_PER_ORG', 2)), total: Math.max(1, intSetting(env, 'SVC_HISTORY_READS', 4)) },
    artifactSweepMs: Math.max(50, intSetting(env, 'SVC_ARTIFACT_SWEEP_MS', 60_000)),
    authLimits: authLimitSettings(env),
    http: httpTimeouts(env),
  };
}

export function authLimitSettings(env: NodeJS.ProcessEnv): AuthLimitSettings {
  return {
    // Two of libuv's four threads: file and DNS work, and the other two, stay free under a flood.
    hashConcurrency: positiveSetting(env, 'SVC_AUTH_HASH_CONCURRENCY', 2),
    hashQueue: intSetting(env, 'SVC_AUTH_HASH_QUEUE', 16),
    failuresPerKeyPerMinute: intSetting(env, 'SVC_AUTH_FAILURES_PER_KEY_PER_MINUTE', 10),
    failuresPerAddressPerMinute: intSetting(env, 'SVC_AUTH_FAILURES_PER_ADDRESS_PER_MINUTE', 30),
    failedPairCacheMs: intSetting(env, 'SVC_AUTH_FAILED_PAIR_CACHE_SECONDS', 30) * 1000,
  };
}

function httpTimeouts(env: NodeJS.ProcessEnv): HttpTimeouts {
  const timeouts = {
    headersTimeoutMs: positiveSetting(env, 'SVC_HTTP_HEADERS_TIMEOUT_MS', 10_000),
    // Above the stream heartbeat (SVC_NOTIFY_HEARTBEAT_MS, 15 s) and the read-your-writes wait.
    idleTimeoutMs: intSetting(env, 'SVC_HTTP_IDLE_TIMEOUT_MS', 120_000),
    // Off: it counts a 64 MiB upload on a slow link that is still sending; the idle timeout ends a stalled one.
    requestTimeoutMs: intSetting(env, 'SVC_HTTP_REQUEST_TIMEOUT_MS', 0),
  };
  // Node refuses a headers timeout longer than the request timeout.
  if (timeouts.requestTimeoutMs > 0 && timeouts.requestTimeoutMs < timeouts.headersTimeoutMs) {
    throw new Error(`SVC_HTTP_REQUEST_TIMEOUT_MS must be 0 or at least SVC_HTTP_HEADERS_TIMEOUT_MS (${timeouts.headersTimeoutMs}), got ${timeouts.requestTimeoutMs}`);
  }
  return timeouts;
}

function positiveSetting(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = intSetting(env, name, fallback);
  if (value === 0) throw new Error(`${name} must be a positive integer, got '${env[name]}'`);
  return value;
}

function rateLimitSettings(env: NodeJS.ProcessEnv): Settings['rateLimit'] {
  const perSecond = intSetting(env, 'SVC_RATE_LIMIT_PER_SECOND', 0);
  return { perSecond, burst: intSetting(env, 'SVC_RATE_LIMIT_BURST', 2 * perSecond) || perSecond };
}

function intSetting(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got '${raw}'`);
  return value;
}
