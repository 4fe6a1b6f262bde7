import { hostname } from 'node:os';
import type { RebuildProgress } from './rebuild';

/** The projector writes this meta record every second; the api's health check and the CLI read it. */
export const HEARTBEAT_KEY = 'projector:heartbeat';

/** A projector that beat within this bound is alive. */
export const HEARTBEAT_FRESH_MS = 5000;
/** A live projector failing (retrying its stores, or stalled) for this long is reported as failing. */
export const FAILING_AFTER_MS = 5000;

/**
 * What the projector's subscription is doing: `catching-up` (behind the head, committing),
 * `live` (every projection at the head), `retrying` (a store failed; it resubscribes from the
 * checkpoints after a backoff), `stalled` (behind the head with no progress; it resubscribes),
 * `rebuilding` (live processing paused for a rebuild).
 */
export type ProjectorState = 'starting' | 'catching-up' | 'live' | 'retrying' | 'stalled' | 'rebuilding' | 'stopped';

export interface ProjectorStatus {
  state: ProjectorState;
  /** Since when the projector has made no progress because of failures; null while it works. */
  failingSince: string | null;
  /** The pending retry, while `retrying`. */
  retry: { attempt: number; reason: string; nextAt: string } | null;
  /** The last store or subscription error (kept after recovery, for the operator). */
  lastError: { at: string; message: string } | null;
  /** Position each projection has committed (`commit/prepare` text), null before its first commit. */
  positions: Record<string, string | null>;
  /** The rebuild under way, while `rebuilding` (absent from older projectors). */
  rebuild?: RebuildProgress | null;
}

export interface Heartbeat {
  pid: number;
  /** The machine the projector runs on (its pid means something only there); absent from older projectors. */
  host?: string;
  at: string;
  projections: string[];
  /** Absent from the heartbeat of a projector older than supervision. */
  status?: ProjectorStatus;
  /** Head of the log when the heartbeat was written, null when it could not be read. */
  head?: string | null;
}

export type ProjectorHealth = 'running' | 'failing' | 'not running';

/**
 * Whether the process that wrote `beat` may still be alive. Only a heartbeat written on this machine
 * can be checked (signal 0 to its pid): a projector killed a moment ago left a fresh heartbeat that
 * must not count as running (after a `kill -9`, or when the whole layout restarts within 5 s). A
 * heartbeat from another machine or container (another hostname) is judged by its age alone.
 */
export function beatProcessAlive(beat: Pick<Heartbeat, 'pid' | 'host'>): boolean {
  if (beat.host === undefined || beat.host !== hostname()) return true;
  try {
    process.kill(beat.pid, 0);
    return true;
  } catch (error) {
    // EPERM: the pid exists under another user.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * `running`: beating and making progress (or idle at the head); `failing`: beating but retrying or
 * stalled for FAILING_AFTER_MS or more, so its read models are going stale; `not running`: no fresh
 * beat, or a fresh one from a process that has died.
 */
export function projectorHealth(
  beat: Heartbeat | null,
  now: number = Date.now(),
  alive: (beat: Heartbeat) => boolean = beatProcessAlive,
): ProjectorHealth {
  if (beat === null || now - Date.parse(beat.at) >= HEARTBEAT_FRESH_MS || !alive(beat)) return 'not running';
  const since = beat.status?.failingSince;
  return since && now - Date.parse(since) >= FAILING_AFTER_MS ? 'failing' : 'running';
}

/** The CLI asks the running projector to rebuild by writing this meta key; the projector owns the swap. */
export const REBUILD_REQUEST_KEY = 'projector:rebuild-request';

export interface RebuildRequest {
  projection: string;
  requestedAt: string;
  /** `progress`: where the finished rebuild ended (absent from older projectors). */
  done?: { at: string; events: number; error?: string; progress?: RebuildProgress };
}
