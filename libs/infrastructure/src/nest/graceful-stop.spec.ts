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
});
