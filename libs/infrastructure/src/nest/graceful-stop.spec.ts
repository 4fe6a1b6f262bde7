import { GracefulStop } from './graceful-stop';

const silent = { log: () => undefined, error: () => undefined, warn: () => undefined };

describe('GracefulStop', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs the stop once however often it is asked, then exits with the requested status', async () => {
    const exits: number[] = [];
    let runs = 0;
    const stop = new GracefulStop(async () => void (runs += 1), { logger: silent, exit: (code) => exits.push(code) });
    await Promise.all([stop.stop('SIGTERM'), stop.stop('SIGINT'), stop.stop('the projector crashed', 1)]);
    expect(runs).toBe(1);
    expect(exits).toEqual([0]);
    expect(stop.stopping).toBe(true);
  });

  it('exits 1 when the stop fails', async () => {
    const exits: number[] = [];
    const stop = new GracefulStop(() => Promise.reject(new Error('store gone')), { logger: silent, exit: (code) => exits.push(code) });
    await stop.stop('SIGTERM');
    expect(exits).toEqual([1]);
  });

  it('exits 1 at the deadline when the stop hangs', async () => {
    const exits: number[] = [];
    const stop = new GracefulStop(() => new Promise<void>(() => undefined), { logger: silent, deadlineMs: 8000, exit: (code) => exits.push(code) });
    void stop.stop('SIGTERM');
    await jest.advanceTimersByTimeAsync(7999);
    expect(exits).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(exits).toEqual([1]);
  });

  it('logs an unhandled rejection or an uncaught exception with its stack, then stops with status 1', async () => {
    const before = { rejection: process.listeners('unhandledRejection'), exception: process.listeners('uncaughtException') };
    const errors: unknown[][] = [];
    const exits: number[] = [];
    let runs = 0;
    const logger = { ...silent, error: (...args: unknown[]) => void errors.push(args) };
    const stop = new GracefulStop(async () => void (runs += 1), { logger, exit: (code) => exits.push(code) }).catchFatal();
    try {
      const added = process.listeners('unhandledRejection').filter((l) => !before.rejection.includes(l));
      expect(added).toHaveLength(1);
      const failure = new Error('findOne timed out');
      added[0](failure, Promise.resolve());
      await stop.stop('again');
      expect(errors[0]).toEqual(['unhandled rejection: findOne timed out', failure.stack, 'process']);
      expect([runs, exits]).toEqual([1, [1]]);
      const thrown = process.listeners('uncaughtException').filter((l) => !before.exception.includes(l));
      expect(thrown).toHaveLength(1);
      thrown[0](new Error('boom'), 'uncaughtException');
      expect(errors[1][0]).toBe('uncaught exception: boom');
    } finally {
      for (const l of process.listeners('unhandledRejection')) if (!before.rejection.includes(l)) process.off('unhandledRejection', l);
      for (const l of process.listeners('uncaughtException')) if (!before.exception.includes(l)) process.off('uncaughtException', l);
    }
  });
});
