import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { beatProcessAlive, FAILING_AFTER_MS, HEARTBEAT_FRESH_MS, type Heartbeat, projectorHealth, type ProjectorStatus } from './heartbeat';
import { backoffDelay, describeError } from './supervisor';

describe('backoffDelay', () => {
  const options = { initialMs: 100, maxMs: 5000 };

  it('doubles per attempt, between half and all of the ceiling (jitter), and never passes the cap', () => {
    expect([1, 2, 3, 4].map((a) => backoffDelay(a, options, () => 0))).toEqual([50, 100, 200, 400]);
    expect([1, 2, 3, 4].map((a) => backoffDelay(a, options, () => 1))).toEqual([100, 200, 400, 800]);
    for (const attempt of [7, 10, 100, 10_000]) {
      expect(backoffDelay(attempt, options, () => 0.999)).toBeLessThanOrEqual(5000);
      expect(backoffDelay(attempt, options, () => 0)).toBe(2500);
    }
  });
});

describe('describeError', () => {
  it('keeps the kind and message, hides credentials in connection strings, and bounds the length', () => {
    const error = new Error('connect failed: mongodb://svc:s3cret@mongo:27017/svc?replicaSet=rs0');
    error.name = 'MongoServerSelectionError';
    expect(describeError(error)).toBe('MongoServerSelectionError: connect failed: mongodb://***@mongo:27017/svc?replicaSet=rs0');
    expect(describeError('x'.repeat(1000))).toHaveLength(301);
  });
});

describe('projectorHealth', () => {
  const now = Date.parse('2024-05-01T12:00:00Z');
  const ago = (ms: number) => new Date(now - ms).toISOString();
  const beat = (atMs: number, status?: Partial<ProjectorStatus>): Heartbeat => ({
    pid: 1,
    at: ago(atMs),
    projections: [],
    status: status && { state: 'live', failingSince: null, retry: null, lastError: null, positions: {}, ...status },
  });

  it('is running while beating and making progress, or briefly retrying', () => {
    expect(projectorHealth(beat(100, {}), now)).toBe('running');
    expect(projectorHealth(beat(100), now)).toBe('running'); // a heartbeat from before supervision
    expect(projectorHealth(beat(100, { state: 'retrying', failingSince: ago(FAILING_AFTER_MS - 1000) }), now)).toBe('running');
  });

  it('is failing when it beats but has not progressed for FAILING_AFTER_MS (retrying or stalled)', () => {
    expect(projectorHealth(beat(100, { state: 'retrying', failingSince: ago(FAILING_AFTER_MS) }), now)).toBe('failing');
    expect(projectorHealth(beat(100, { state: 'stalled', failingSince: ago(60_000) }), now)).toBe('failing');
  });

  it('is not running without a fresh heartbeat', () => {
    expect(projectorHealth(null, now)).toBe('not running');
    expect(projectorHealth(beat(HEARTBEAT_FRESH_MS, {}), now)).toBe('not running');
  });

  it('is not running when the fresh heartbeat comes from a process of this machine that has died', () => {
    // A process that exited: its pid no longer exists (reaped by spawnSync before it returns).
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    const deadPid = Number(dead.stdout.toString());
    const fresh = (pid: number, host: string | undefined) => ({ ...beat(100, {}), pid, host });
    expect(projectorHealth(fresh(deadPid, hostname()), now)).toBe('not running');
    expect(projectorHealth(fresh(process.pid, hostname()), now)).toBe('running');
    expect(beatProcessAlive(fresh(deadPid, hostname()))).toBe(false);
    expect(beatProcessAlive(fresh(process.pid, hostname()))).toBe(true);
    // Another machine's pid (or an older projector's heartbeat, with no host) cannot be checked here: its age decides.
    expect(beatProcessAlive(fresh(deadPid, `${hostname()}-elsewhere`))).toBe(true);
    expect(beatProcessAlive(fresh(deadPid, undefined))).toBe(true);
  });
});
