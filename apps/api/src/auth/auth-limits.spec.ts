import { authLimitSettings } from '@svc/infrastructure/config/env';
import { AuthLimits, HashGate, MAX_FAILED_PAIRS } from './auth-limits';

/** A task the test finishes by hand. */
function deferred(): { promise: Promise<void>; finish: () => void } {
  let finish: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => (finish = resolve));
  return { promise, finish };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('HashGate', () => {
  it('runs a few at once, queues a few more, refuses the rest at once with UNAVAILABLE and a wait', async () => {
    const gate = new HashGate(2, 1);
    let running = 0;
    let most = 0;
    const tasks = [deferred(), deferred(), deferred()];
    const results = tasks.map((task, i) =>
      gate.run(async () => {
        running++;
        most = Math.max(most, running);
        await task.promise;
        running--;
        return i;
      }),
    );
    await tick();
    expect([running, gate.queued]).toEqual([2, 1]);
    await expect(gate.run(async () => 'late')).rejects.toMatchObject({ code: 'UNAVAILABLE', reason: 'AUTH_VERIFICATIONS_BUSY', metadata: { retryAfterSeconds: '1' } });
    tasks[0].finish();
    await tick();
    // The queued one took the freed slot.
    expect([running, gate.queued]).toEqual([2, 0]);
    tasks[1].finish();
    tasks[2].finish();
    expect(await Promise.all(results)).toEqual([0, 1, 2]);
    expect(most).toBe(2);
    expect(await gate.run(async () => 'again')).toBe('again');
  });

  it('frees the slot of a task that failed', async () => {
    const gate = new HashGate(1, 0);
    await expect(gate.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await gate.run(async () => 'next')).toBe('next');
  });
});

describe('AuthLimits', () => {
  let now = 1_000_000;
  const clock = () => now;
  const limits = (env: NodeJS.ProcessEnv = {}) => new AuthLimits(authLimitSettings(env), clock);

  it('remembers a failed pair for its time, against the key position it failed on', () => {
    const l = limits({ SVC_AUTH_FAILED_PAIR_CACHE_SECONDS: '30' });
    l.rememberFailure('d1', 7);
    expect([l.failedRecently('d1', 7), l.failedRecently('d1', 8), l.failedRecently('d2', 7)]).toEqual([true, false, false]);
    l.rememberFailure('d1', 7);
    now += 29_999;
    expect(l.failedRecently('d1', 7)).toBe(true);
    now += 1;
    expect(l.failedRecently('d1', 7)).toBe(false);
    expect(l.failedPairs).toBe(0);
  });

  it('keeps at most MAX_FAILED_PAIRS failed pairs, dropping the oldest', () => {
    const l = limits();
    for (let i = 0; i <= MAX_FAILED_PAIRS; i++) l.rememberFailure(`d${i}`, null);
    expect(l.failedPairs).toBe(MAX_FAILED_PAIRS);
    expect([l.failedRecently('d0', null), l.failedRecently('d1', null), l.failedRecently(`d${MAX_FAILED_PAIRS}`, null)]).toEqual([false, true, true]);
  });

  it('remembers nothing with a cache time of 0', () => {
    const l = limits({ SVC_AUTH_FAILED_PAIR_CACHE_SECONDS: '0' });
    l.rememberFailure('d1', 1);
    expect(l.failedRecently('d1', 1)).toBe(false);
  });

  it('refuses past either limit, and an address refused does not spend the username', () => {
    const l = limits({ SVC_AUTH_FAILURES_PER_KEY_PER_MINUTE: '2', SVC_AUTH_FAILURES_PER_ADDRESS_PER_MINUTE: '1' });
    const failed = (username: string, address: string) => {
      l.admit(username, address);
      l.settle(username, address, true);
    };
    failed('alice-key', '192.0.2.1');
    expect(() => l.admit('alice-key', '192.0.2.1')).toThrow(expect.objectContaining({ metadata: { scope: 'address', retryAfterSeconds: '60' } }));
    failed('alice-key', '192.0.2.2');
    expect(() => l.admit('alice-key', '192.0.2.3')).toThrow(expect.objectContaining({ metadata: { scope: 'api_key', retryAfterSeconds: '30' } }));
    // A check that verified the pair (or never ran) gives its attempts back.
    l.admit('bob-key', '192.0.2.4');
    l.settle('bob-key', '192.0.2.4', false);
    failed('bob-key', '192.0.2.4');
    now += 30_000; // one attempt back at 2 a minute
    failed('alice-key', '192.0.2.5');
  });

  it('admits one check of a username at a time, and of an address half of what the gate holds', () => {
    const l = limits({ SVC_AUTH_HASH_CONCURRENCY: '1', SVC_AUTH_HASH_QUEUE: '3' });
    l.admit('alice-key', '192.0.2.1');
    expect(() => l.admit('alice-key', '192.0.2.2')).toThrow(expect.objectContaining({ code: 'RESOURCE_EXHAUSTED', metadata: { scope: 'api_key', retryAfterSeconds: '1' } }));
    l.admit('bob-key', '192.0.2.1');
    expect(() => l.admit('carol-key', '192.0.2.1')).toThrow(expect.objectContaining({ metadata: { scope: 'address', retryAfterSeconds: '1' } }));
    l.settle('alice-key', '192.0.2.1', true);
    l.admit('alice-key', '192.0.2.2');
    l.admit('carol-key', '192.0.2.1');
  });

  it('sets no limit at 0', () => {
    const l = limits({ SVC_AUTH_FAILURES_PER_KEY_PER_MINUTE: '0', SVC_AUTH_FAILURES_PER_ADDRESS_PER_MINUTE: '0' });
    for (let i = 0; i < 1000; i++) l.admit('alice-key', '192.0.2.1');
  });
});
