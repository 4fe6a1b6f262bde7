/** The bench's settings, read from the environment (bench/run.ts documents each variable). */
export const PHASES = ['ab-create', 'planner', 'create', 'get', 'list', 'hot', 'lag', 'notify', 'idle', 'streams', 'flood', 'rebuild', 'session', 'big-org', 'long-stream'] as const;
export type Phase = (typeof PHASES)[number];

export interface Settings {
  seconds: number;
  warmupSeconds: number;
  clients: number;
  listNotes: number;
  hotClients: number;
  hotResources: number;
  lagSamples: number;
  rebuildEvents: number;
  sessionMessages: number;
  phases: Set<Phase>;
  profile: { api: boolean; projector: boolean };
  keep: boolean;
  verbose: boolean;
  json: string | undefined;
  readWaitMs: string | undefined;
}

export function numberEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got '${raw}'`);
  return value;
}

export function loadSettings(): Settings {
  const seconds = numberEnv('BENCH_SECONDS', 10);
  const defaults = PHASES.filter((p) => p !== 'ab-create' || process.env.BENCH_BASE);
  const phaseList = (process.env.BENCH_PHASES ?? defaults.join(',')).split(',').map((p) => p.trim()).filter(Boolean);
  for (const p of phaseList) {
    if (!(PHASES as readonly string[]).includes(p)) throw new Error(`unknown phase '${p}' in BENCH_PHASES; known: ${PHASES.join(', ')}`);
  }
  const profile = (process.env.BENCH_PROFILE ?? '').toLowerCase();
  return {
    seconds,
    warmupSeconds: numberEnv('BENCH_WARMUP_SECONDS', 2),
    clients: Math.round(numberEnv('BENCH_CLIENTS', 32)),
    listNotes: Math.round(numberEnv('BENCH_LIST_NOTES', 10_000)),
    hotClients: Math.round(numberEnv('BENCH_HOT_CLIENTS', 64)),
    hotResources: Math.round(numberEnv('BENCH_HOT_RESOURCES', 8)),
    lagSamples: Math.round(numberEnv('BENCH_LAG_SAMPLES', Math.max(100, 30 * seconds))),
    rebuildEvents: Math.round(numberEnv('BENCH_REBUILD_EVENTS', 100_000)),
    sessionMessages: Math.round(numberEnv('BENCH_SESSION_MESSAGES', 10_000)),
    phases: new Set(phaseList as Phase[]),
    profile: { api: ['api', 'both', '1'].includes(profile), projector: ['projector', 'both'].includes(profile) },
    keep: process.env.BENCH_KEEP === '1',
    verbose: process.env.BENCH_VERBOSE === '1',
    json: process.env.BENCH_JSON || undefined,
    readWaitMs: process.env.BENCH_READ_WAIT_MS || undefined,
  };
}
