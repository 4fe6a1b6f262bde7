import { KeyedGate } from './keyed-gate';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('KeyedGate', () => {
  it('runs at most perKey per key, queues a few more, refuses the rest with a retry time; other keys still run', async () => {
    const gate = new KeyedGate({ perKey: 2, total: 4, queuePerKey: 1, what: 'history reads' });
    const blockers = [deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = blockers.map((b, i) =>
      gate.run('acme', async () => {
        started.push(i);
        await b.promise;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    await expect(gate.run('acme', async () => 'x')).rejects.toMatchObject({ code: 'RESOURCE_EXHAUSTED', metadata: { retryAfterSeconds: '1' } });
    expect(await gate.run('globex', async () => 'globex ran')).toBe('globex ran');
    blockers[0].resolve();
    await runs[0];
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2]);
    blockers[1].resolve();
    blockers[2].resolve();
    await Promise.all(runs);
  });

  it('holds the process to its total across keys, admitting waiters in order as room frees', async () => {
    const gate = new KeyedGate({ perKey: 5, total: 2, queuePerKey: 5, what: 'history reads' });
    const order: string[] = [];
    const a = deferred();
    const b = deferred();
    const first = gate.run('a', () => a.promise.then(() => void order.push('a1')));
    const second = gate.run('b', () => b.promise.then(() => void order.push('b1')));
    const third = gate.run('c', async () => void order.push('c1'));
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual([]);
    a.resolve();
    await first;
    await third;
    expect(order).toEqual(['a1', 'c1']);
    b.resolve();
    await second;
  });
});
