/**
 * Bench phase `ab-create` (issue 17): CreateNote throughput of this build against another build of
 * the project (by default the issue-3 code, commit 0d5b15f), measured in one run on one machine so
 * that both see the same load. The other build is a built checkout (`BENCH_BASE`, holding `dist/`
 * with its own bench/stack.js, which knows how to start that build); this build uses ./stack.
 *
 * Rounds alternate the order (base then this, this then base, ...) so a drift of the machine's load
 * during the run weighs on both sides alike; each side's figure is the median of its rounds. Both
 * sides are driven by this file's load generator with the same body, clients and windows.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CpuMeter, formatCpu } from './cpu';
import { Client, type LoadResult, runLoad } from './load';
import * as current from './stack';
import { fmtMs, fmtRate } from './stats';

const NOTES = '/svc.notes.v1.NotesService';

/** What this phase needs of a build's bench/stack module (the same shape since issue 3). */
interface StackModule {
  Stack: new (options?: { verbose?: boolean }) => {
    baseUrl: string;
    apiPid?: number;
    projectorPid?: number;
    start(): Promise<void>;
    stop(): Promise<void>;
    removeData(): void;
  };
  WRITER: current.Credentials;
}

export interface AbSide {
  label: string;
  rates: number[];
  p50s: number[];
  p99s: number[];
  errors: number;
  median: { rate: number; p50: number; p99: number };
}

export interface AbResult {
  base: AbSide;
  head: AbSide;
  /** head median rate / base median rate. */
  ratio: number;
  details: string[];
}

export interface AbOptions {
  baseDir: string;
  rounds: number;
  clients: number;
  warmupMs: number;
  durationMs: number;
  verbose: boolean;
  log: (message: string) => void;
}

export async function measureCreateAb(options: AbOptions): Promise<AbResult> {
  const stackFile = path.join(options.baseDir, 'dist/bench/stack.js');
  if (!fs.existsSync(stackFile)) {
    throw new Error(
      `ab-create: ${stackFile} is missing. Build the base first, e.g.\n` +
        `  git worktree add /tmp/ab-base 0d5b15f && (cd /tmp/ab-base && npm ci && npm run build)\n` +
        `then run with BENCH_BASE=/tmp/ab-base`,
    );
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- another build, loaded by path at run time
  const base = require(stackFile) as StackModule;
  const sides = {
    base: { module: base, side: emptySide(`base (${options.baseDir})`) },
    head: { module: current as unknown as StackModule, side: emptySide('this build') },
  };
  const details: string[] = [];
  for (let round = 0; round < options.rounds; round++) {
    const order = round % 2 === 0 ? (['base', 'head'] as const) : (['head', 'base'] as const);
    for (const which of order) {
      const { module, side } = sides[which];
      const r = await runCreate(module, options);
      side.rates.push(r.rate);
      side.p50s.push(r.latency.p50);
      side.p99s.push(r.latency.p99);
      side.errors += r.errors;
      const line =
        `round ${round + 1} ${which}: ${fmtRate(r.rate)}, p50 ${fmtMs(r.latency.p50)}, p99 ${fmtMs(r.latency.p99)}, ` +
        `${r.errors} errors; ${formatCpu(r.cpu)}`;
      options.log(line);
      details.push(line);
    }
  }
  for (const { side } of Object.values(sides)) {
    side.median = { rate: median(side.rates), p50: median(side.p50s), p99: median(side.p99s) };
  }
  return { base: sides.base.side, head: sides.head.side, ratio: sides.head.side.median.rate / sides.base.side.median.rate, details };
}

async function runCreate(module: StackModule, options: AbOptions): Promise<LoadResult> {
  const stack = new module.Stack({ verbose: options.verbose });
  const client = { current: null as Client | null };
  try {
    await stack.start();
    client.current = new Client(stack.baseUrl, module.WRITER, options.clients);
    const meter = new CpuMeter(() => [
      { name: 'api', pid: stack.apiPid },
      { name: 'projector', pid: stack.projectorPid },
      { name: 'bench', pid: process.pid },
    ]);
    return await runLoad(client.current, {
      clients: options.clients,
      warmupMs: options.warmupMs,
      durationMs: options.durationMs,
      meter,
      path: `${NOTES}/CreateNote`,
      body: (c, s) =>
        JSON.stringify({
          note_id: `c${c}-${s}`,
          note: { display_name: `Note ${c}-${s}`, tool_name: `tool-${s % 20}`, description: 'created by the benchmark' },
        }),
    });
  } finally {
    client.current?.close();
    await stack.stop();
    stack.removeData();
  }
}

function emptySide(label: string): AbSide {
  return { label, rates: [], p50s: [], p99s: [], errors: 0, median: { rate: 0, p50: 0, p99: 0 } };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
