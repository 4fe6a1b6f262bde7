import { REACTORS } from '../areas';
import type { ReactorServices, Runner } from './reactor';
import { ReactorHost } from './reactor-host';

describe('the reactor registry', () => {
  it('holds every reactor the areas declare, each under a name of its own (its checkpoint, status and metrics label)', () => {
    expect(REACTORS.map((r) => `${r.name} (${r.drivenBy})`).sort()).toEqual([
      'agent-runtime (events)',
      'cron (timer)',
      'investigation-status (events)',
      'issues (events)',
      'plan-activation (events)',
      'plan-issues (events)',
      'post-deploy (events)',
      'rows (events)',
      'uploads (timer)',
    ]);
  });
});

describe('ReactorHost', () => {
  const runner = (): Runner & { started: number; stopped: number } => ({ started: 0, stopped: 0, start() { this.started++; }, async stop() { this.stopped++; } });

  it('starts what the declarations build, says which are off and why, and stops them all, closing what they opened', async () => {
    const lines: string[] = [];
    const running = runner();
    const close = jest.fn(async () => undefined);
    const host = new ReactorHost(
      [
        { name: 'a', drivenBy: 'timer', create: () => ({ runner: running, description: 'every 5 ms', close }) },
        { name: 'b', drivenBy: 'events', create: () => ({ off: 'B=off' }) },
      ],
      (reactor) => ({ log: (line: string) => lines.push(`[${reactor.name}] ${line}`) }) as unknown as ReactorServices,
    );
    await host.start();
    expect(running.started).toBe(1);
    expect(lines).toEqual(['[a] a: every 5 ms', '[b] b: off (B=off)']);
    await host.stop();
    expect(running.stopped).toBe(1);
    expect(close).toHaveBeenCalledTimes(1);
  });

  it('refuses a runner of the other kind than the declaration says (a timer cannot hold a checkpoint)', async () => {
    const host = new ReactorHost(
      [{ name: 't', drivenBy: 'timer', create: (ctx) => ({ runner: ctx.follow({ select: () => null, run: async () => '' }, { concurrency: 1 }) }) }],
      () => ({ log: () => undefined }) as unknown as ReactorServices,
    );
    await expect(host.start()).rejects.toThrow('reactor t is driven by timer, not events');
  });
});
