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
  };
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
