import type { Logger } from '@nestjs/common';
import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { ProjectorSupervisor } from './projector-process';

/** A stand-in child: exits when told to (kill) or when the test crashes it. */
class FakeChild extends EventEmitter {
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  constructor(readonly pid: number) {
    super();
  }
  kill(signal: NodeJS.Signals): boolean {
    void Promise.resolve().then(() => this.exit(signal === 'SIGTERM' ? 0 : null, signal === 'SIGTERM' ? null : signal));
    return true;
  }
  exit(code: number | null, signal: NodeJS.Signals | null): void {
    this.exitCode = code;
    this.signalCode = signal;
    this.emit('exit', code, signal);
  }
}

describe('ProjectorSupervisor (the api with its projector child)', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const setup = () => {
    const children: FakeChild[] = [];
    const lines: string[] = [];
    const logger = { log: (m: string) => lines.push(m), error: (m: string) => lines.push(m) } as unknown as Logger;
    let stopping = false;
    const supervisor = new ProjectorSupervisor({
      logger,
      stopping: () => stopping,
      start: () => {
        const child = new FakeChild(100 + children.length);
        children.push(child);
        return child as unknown as ChildProcess;
      },
      backoff: { initialMs: 200, maxMs: 30_000 },
      stableAfterMs: 30_000,
    }).launch();
    return { supervisor, children, lines, stop: () => (stopping = true) };
  };

  it('restarts a child that dies, after a backoff that grows while it keeps dying and starts over once one ran long enough', async () => {
    const { children, lines } = setup();
    children[0].exit(null, 'SIGKILL');
    expect(lines.at(-1)).toMatch(/^projector exited \(SIGKILL\) after \d+ ms; restarting it in (\d+) ms \(restart 1\)$/);
    const first = Number(/in (\d+) ms/.exec(lines.at(-1)!)![1]);
    expect(first).toBeGreaterThanOrEqual(100);
    expect(first).toBeLessThanOrEqual(200);
    await jest.advanceTimersByTimeAsync(200);
    expect(children).toHaveLength(2);
    children[1].exit(1, null);
    expect(lines.at(-1)).toMatch(/restarting it in (\d+) ms \(restart 2\)$/);
    await jest.advanceTimersByTimeAsync(400);
    expect(children).toHaveLength(3);
    await jest.advanceTimersByTimeAsync(30_000);
    children[2].exit(null, 'SIGKILL');
    expect(lines.at(-1)).toMatch(/\(restart 1\)$/);
  });

  it('a stop during the backoff cancels the restart and succeeds; a stop stops the running child with SIGTERM', async () => {
    const crashed = setup();
    crashed.children[0].exit(null, 'SIGKILL');
    crashed.stop();
    await crashed.supervisor.stop();
    await jest.advanceTimersByTimeAsync(60_000);
    expect(crashed.children).toHaveLength(1);

    const running = setup();
    running.stop();
    await running.supervisor.stop();
    expect(running.children[0].exitCode).toBe(0);
  });

  it('a child that crashes while the api stops is not restarted, and the stop reports it', async () => {
    const { supervisor, children, stop } = setup();
    stop();
    children[0].kill = () => {
      void Promise.resolve().then(() => children[0].exit(1, null));
      return true;
    };
    await expect(supervisor.stop()).rejects.toThrow('projector exited (1)');
    await jest.advanceTimersByTimeAsync(60_000);
    expect(children).toHaveLength(1);
  });
});
