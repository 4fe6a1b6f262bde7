import { TickLoop } from './tick-loop';

describe('TickLoop', () => {
  it('survives failing ticks: retries with backoff, reports each failure, and resumes ticking', async () => {
    let calls = 0;
    const failures: number[] = [];
    const lines: string[] = [];
    let resolveDone!: () => void;
    const done = new Promise<void>((r) => (resolveDone = r));
    const loop = new TickLoop(
      async () => {
        calls++;
        if (calls <= 2) throw new Error('store unavailable');
        if (calls === 4) resolveDone();
      },
      { name: 'test', everyMs: 1, log: (line) => lines.push(line), onFailure: (n) => failures.push(n) },
    );
    loop.start();
    await done;
    await loop.stop();
    expect(failures).toEqual([1, 2]);
    expect(lines[0]).toMatch(/^test: tick failed \(attempt 1\), again in \d+ ms: .*store unavailable/);
    expect(calls).toBeGreaterThanOrEqual(4);
  });

  it('stops between ticks, and a stopped loop ticks no more', async () => {
    let calls = 0;
    const loop = new TickLoop(async () => void calls++, { name: 'test', everyMs: 60_000, log: () => undefined });
    loop.start();
    await new Promise((r) => setTimeout(r, 20));
    await loop.stop();
    expect(calls).toBe(1);
  });
});
