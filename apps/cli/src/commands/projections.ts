import { comparePositions, type Position, START } from '@svc/infrastructure/event-store/event-store.port';
import {
  HEARTBEAT_KEY,
  type Heartbeat,
  type ProjectorHealth,
  projectorHealth,
  type ProjectorStatus,
  REBUILD_REQUEST_KEY,
  type RebuildRequest,
} from '@svc/infrastructure/projection/heartbeat';
import { lagReader } from '@svc/infrastructure/observability/progress-metrics';
import type { Projection } from '@svc/infrastructure/projection/projection';
import { rebuildProjection, type RebuildProgress } from '@svc/infrastructure/projection/rebuild';
import { replayParked as replay, type ReplayOutcome } from '@svc/infrastructure/projection/replay-parked';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { PROJECTIONS } from '@svc/application/areas';
import { type Context, showPosition, table, UsageError } from '../context';
import { ProgressReporter } from './progress';

const POLL_MS = 100;

export interface ProjectorState {
  /** Alive: beat within HEARTBEAT_FRESH_MS from a process that still exists (it serves rebuild requests even while retrying). */
  running: boolean;
  /** `failing`: alive but retrying its stores or stalled for 5 s or more (the api's /healthz agrees). */
  health: ProjectorHealth;
  pid: number;
  heartbeatAt: string;
  ageMs: number;
  /** `catching-up`, `live`, `retrying`, `stalled`, `rebuilding`, ...; null from an older projector. */
  state: ProjectorStatus['state'] | null;
  failingSince: string | null;
  retry: ProjectorStatus['retry'];
  lastError: ProjectorStatus['lastError'];
  /** The rebuild under way (projection, events, fraction, rate, ETA), while rebuilding. */
  rebuild: RebuildProgress | null;
}

export interface ProjectionStatus {
  name: string;
  checkpoint: string | null;
  updatedAt: string | null;
  /** Events between the checkpoint and the head (SQLite); null where positions are not sequence numbers. */
  lag: number | null;
  /** Age in seconds of the oldest event not yet applied; 0 when caught up. */
  lagSeconds: number;
  caughtUp: boolean;
  parked: number;
  lastError: string | null;
}

export interface StatusReport {
  backend: 'sqlite' | 'eventstoredb';
  head: string;
  projector: ProjectorState | null;
  projections: ProjectionStatus[];
}

export async function projectorState(reads: ReadStore): Promise<ProjectorState | null> {
  const beat = await reads.getMeta<Heartbeat>(HEARTBEAT_KEY);
  if (!beat) return null;
  const now = Date.now();
  const ageMs = Math.max(0, now - Date.parse(beat.at));
  const status = beat.status;
  const health = projectorHealth(beat, now);
  return {
    running: health !== 'not running',
    health,
    pid: beat.pid,
    heartbeatAt: beat.at,
    ageMs,
    state: status?.state ?? null,
    failingSince: status?.failingSince ?? null,
    retry: status?.retry ?? null,
    lastError: status?.lastError ?? null,
    rebuild: status?.rebuild ?? null,
  };
}

export async function status(ctx: Context): Promise<void> {
  const reads = await ctx.reads();
  const head = await ctx.events().headPosition();
  const checkpoints = new Map((await reads.listCheckpoints()).map((c) => [c.name, c]));
  const parked = await reads.listParked();
  const lag = lagReader(ctx.events(), ctx.sequencePositions, head);
  const report: StatusReport = {
    backend: ctx.sequencePositions ? 'sqlite' : 'eventstoredb',
    head: showPosition(head),
    projector: await projectorState(reads),
    projections: await Promise.all(PROJECTIONS.map(async (p) => {
      const cp = checkpoints.get(p.name);
      const own = parked.filter((e) => e.projection === p.name);
      return {
        name: p.name,
        checkpoint: cp ? showPosition(cp.position) : null,
        updatedAt: cp?.updatedAt ?? null,
        lag: ctx.sequencePositions ? sequenceLag(head, cp?.position) : null,
        lagSeconds: Math.round((await lag(cp?.position ?? START)).seconds * 10) / 10,
        caughtUp: cp ? comparePositions(cp.position, head) >= 0 : comparePositions(head, START) === 0,
        parked: own.length,
        lastError: own.length > 0 ? own[own.length - 1].error : null,
      };
    })),
  };
  ctx.print(report, renderStatus);
}

/** SQLite positions are 1, 2, 3, ...: the difference is the number of events still to project. */
function sequenceLag(head: Position, checkpoint: Position | undefined): number {
  const done = checkpoint ? checkpoint.commit : 0n;
  return head.commit > done ? Number(head.commit - done) : 0;
}

function renderStatus(r: StatusReport): string {
  const p = r.projector;
  let projector = 'projector never ran (no heartbeat)';
  if (p) {
    const health = p.health === 'running' ? 'running' : p.health.toUpperCase();
    const state = p.state && p.running ? `, ${p.state}` : '';
    projector = `projector ${health}${state} (pid ${p.pid}, heartbeat ${(p.ageMs / 1000).toFixed(1)} s ago)`;
    if (p.rebuild && p.running) projector += `\n  rebuilding ${p.rebuild.projection}: ${Math.floor(p.rebuild.fraction * 100)}% (${p.rebuild.events} events, ${p.rebuild.rate} ev/s)`;
    if (p.retry && p.running) projector += `\n  retry ${p.retry.attempt} at ${p.retry.nextAt}: ${p.retry.reason}`;
    else if (p.lastError) projector += `\n  last error ${p.lastError.at}: ${p.lastError.message}`;
  }
  const rows = r.projections.map((p) => [
    p.name,
    p.checkpoint ?? '-',
    p.lag === null ? (p.caughtUp ? 'caught up' : 'behind') : String(p.lag),
    `${p.lagSeconds.toFixed(1)} s`,
    p.parked === 0 ? '0' : `${p.parked} ALERT`,
    p.lastError ?? '',
  ]);
  return [`head ${r.head} (${r.backend}); ${projector}`, table(['PROJECTION', 'CHECKPOINT', 'LAG', 'LAG TIME', 'PARKED', 'LAST ERROR'], rows)].join('\n');
}

export interface RebuildResult {
  projection: string;
  events: number;
  /** Who rebuilt: the running projector (it owns the live subscription and the swap), or this process. */
  by: 'projector' | 'cli';
}

export async function rebuild(ctx: Context, names: string[], all: boolean, timeoutMs: number): Promise<void> {
  if (all === names.length > 0 || names.length > 1) throw new UsageError('projections rebuild needs one projection name or --all');
  const projections = all ? [...PROJECTIONS] : [known(names[0])];
  const reads = await ctx.reads();
  const results: RebuildResult[] = [];
  const progress = new ProgressReporter(ctx.json);
  for (const projection of projections) {
    const projector = await projectorState(reads);
    if (projector?.running) {
      results.push({ projection: projection.name, events: await askProjector(reads, projection.name, timeoutMs, progress), by: 'projector' });
    } else {
      // No projector: nothing runs this projection live, so this process can rebuild and swap alone.
      const { events, progress: last } = await rebuildProjection(ctx.events(), reads, projection, (p) => progress.report(p));
      progress.report(last);
      results.push({ projection: projection.name, events, by: 'cli' });
    }
    progress.done();
  }
  ctx.print({ results }, (r) =>
    r.results
      .map((x) => `rebuilt ${x.projection} from ${x.events} event(s) (${x.by === 'projector' ? 'by the running projector' : 'in this process'})`)
      .join('\n'),
  );
}

/**
 * The running projector must do the rebuild: it pauses its live subscription, rebuilds, swaps and resumes
 * from the new checkpoint. Rebuilding beside a live subscription would race its writes to the swapped-out
 * collections. The meta key holds one request at a time, so a pending one is waited out first.
 */
async function askProjector(reads: ReadStore, projection: string, timeoutMs: number, progress: ProgressReporter): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pending = await reads.getMeta<RebuildRequest>(REBUILD_REQUEST_KEY);
    if (!pending || pending.done) break;
    await pollStep(reads, deadline, `a rebuild of ${pending.projection} requested at ${pending.requestedAt} is still pending`);
  }
  const request: RebuildRequest = { projection, requestedAt: new Date().toISOString() };
  await reads.putMeta(REBUILD_REQUEST_KEY, request);
  for (;;) {
    const current = await reads.getMeta<RebuildRequest>(REBUILD_REQUEST_KEY);
    if (!current || current.projection !== projection || current.requestedAt !== request.requestedAt) {
      throw new Error('the rebuild request was replaced by another one; run the command again');
    }
    if (current.done) {
      if (current.done.error) throw new Error(`the projector failed to rebuild ${projection}: ${current.done.error}`);
      if (current.done.progress) progress.report(current.done.progress);
      return current.done.events;
    }
    const under = (await projectorState(reads))?.rebuild;
    if (under?.projection === projection && Date.parse(under.startedAt) >= Date.parse(request.requestedAt) - 1000) progress.report(under);
    await pollStep(reads, deadline, `the projector has not finished rebuilding ${projection}`);
  }
}

async function pollStep(reads: ReadStore, deadline: number, waitingFor: string): Promise<void> {
  if (Date.now() > deadline) throw new Error(`timed out: ${waitingFor}`);
  const projector = await projectorState(reads);
  if (!projector?.running) {
    // Not falling back to a local rebuild: a projector that is merely slow could still swap concurrently.
    throw new Error(`${waitingFor}, and the projector stopped beating; the request stays queued for the next projector`);
  }
  await new Promise((r) => setTimeout(r, POLL_MS));
}

export async function listParked(ctx: Context, name: string | undefined): Promise<void> {
  if (name !== undefined) known(name);
  const reads = await ctx.reads();
  const parked = (await reads.listParked(name)).map((e) => ({ ...e, position: showPosition(e.position) }));
  ctx.print({ parked }, (r) =>
    r.parked.length === 0
      ? 'no parked events'
      : r.parked
          .map((e) => `${e.projection}  @${e.position}  ${e.streamId}  ${e.eventType}  ${e.eventId}  parked ${e.parkedAt}\n    ${e.error}`)
          .join('\n'),
  );
}

function known(name: string): Projection {
  const projection = PROJECTIONS.find((p) => p.name === name);
  if (!projection) throw new UsageError(`unknown projection '${name}'; known: ${PROJECTIONS.map((p) => p.name).join(', ')}`);
  return projection;
}

export interface ReplayReport {
  projection: string;
  replayed: ReplayOutcome[];
  /** Still parked after the replay (failed again, or gone from the log). */
  remaining: number;
}

/** Retries the projection's parked events (after their cause is fixed); exit 1 while any stays parked. */
export async function replayParkedCommand(ctx: Context, name: string | undefined): Promise<boolean> {
  if (name === undefined) throw new UsageError('projections replay-parked needs a projection name');
  const projection = known(name);
  const reads = await ctx.reads();
  const replayed = await replay(ctx.events(), reads, projection);
  const report: ReplayReport = { projection: projection.name, replayed, remaining: (await reads.listParked(projection.name)).length };
  ctx.print(report, (r) => {
    if (r.replayed.length === 0) return `no parked events for ${r.projection}`;
    const lines = r.replayed.map((o) => `${o.outcome.toUpperCase().padEnd(8)} @${o.position}  ${o.streamId}  ${o.eventType}${o.error ? `\n    ${o.error}` : ''}`);
    return [...lines, `${r.replayed.filter((o) => o.outcome === 'applied').length} applied, ${r.remaining} still parked`].join('\n');
  });
  return report.remaining === 0;
}
