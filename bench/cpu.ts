/**
 * Where the machine's CPU went during a measured window: the api, the projector, this process (the
 * load generator) and everything else, from /proc on Linux. On a 2-core machine shared with other
 * work, "other" is what tells a slow product from a busy machine. Elsewhere it reports nothing.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';

/** Linux reports /proc times in USER_HZ ticks, 100 per second on every mainstream architecture. */
const TICKS_PER_SECOND = 100;

interface Snapshot {
  at: number;
  busyTicks: number;
  perPid: Map<number, number>;
}

export interface CpuShare {
  /** Cores' worth of CPU (1.0 = one core fully busy) used by each named process, over the window. */
  processes: Array<{ name: string; cores: number }>;
  /** Cores' worth used by everything else on the machine. */
  other: number;
  /** Cores' worth busy in total, out of `cores`. */
  busy: number;
  cores: number;
}

function procTicks(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesized command name; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

function machineBusyTicks(): number | null {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const [, ...values] = line.trim().split(/\s+/);
    const n = values.map(Number);
    // user nice system idle iowait irq softirq steal (guest fields are already counted in user).
    const idle = n[3] + (n[4] ?? 0);
    const total = n.slice(0, 8).reduce((a, b) => a + b, 0);
    return total - idle;
  } catch {
    return null;
  }
}

export class CpuMeter {
  private start: Snapshot | null = null;

  constructor(private readonly pids: () => Array<{ name: string; pid: number | undefined }>) {}

  begin(): void {
    this.start = this.snapshot();
  }

  end(): CpuShare | null {
    const start = this.start;
    const stop = this.snapshot();
    if (!start || !stop) return null;
    const seconds = (stop.at - start.at) / 1000;
    const toCores = (ticks: number): number => ticks / TICKS_PER_SECOND / seconds;
    const processes: Array<{ name: string; cores: number }> = [];
    let mine = 0;
    for (const { name, pid } of this.pids()) {
      if (pid === undefined) continue;
      const a = start.perPid.get(pid);
      const b = stop.perPid.get(pid);
      if (a === undefined || b === undefined) continue;
      processes.push({ name, cores: toCores(b - a) });
      mine += b - a;
    }
    const busy = stop.busyTicks - start.busyTicks;
    return { processes, other: Math.max(0, toCores(busy - mine)), busy: toCores(busy), cores: os.cpus().length };
  }

  private snapshot(): Snapshot | null {
    const busyTicks = machineBusyTicks();
    if (busyTicks === null) return null;
    const perPid = new Map<number, number>();
    for (const { pid } of this.pids()) {
      if (pid === undefined) continue;
      const ticks = procTicks(pid);
      if (ticks !== null) perPid.set(pid, ticks);
    }
    return { at: Date.now(), busyTicks, perPid };
  }
}

export function formatCpu(share: CpuShare | null): string {
  if (!share) return 'cpu: n/a';
  const parts = [...share.processes.map((p) => `${p.name} ${p.cores.toFixed(2)}`), `other ${share.other.toFixed(2)}`];
  return `cpu (cores busy of ${share.cores}): ${parts.join(', ')}; total ${share.busy.toFixed(2)}`;
}
