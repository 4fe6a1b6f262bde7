/** What the bench prints: the machine, the results table, and one line per load phase. */
import * as os from 'node:os';
import { formatCpu } from './cpu';
import type { LoadResult } from './load';
import { fmtMs, fmtRate } from './stats';

export interface Row {
  measure: string;
  result: string;
  target: string;
  /** undefined: informational, no target. */
  pass?: boolean;
}

export function machine(): { cpu: string; cores: number; node: string; os: string; memory: string; loadavg: string } {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    loadavg: os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
  };
}

export function table(rows: Row[]): string {
  const header = ['Measure', 'Result', 'Target', 'Status'];
  const cells = rows.map((r) => [r.measure, r.result, r.target, r.pass === undefined ? '' : r.pass ? 'PASS' : 'FAIL']);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]): string => `| ${c.map((v, i) => v.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)].join('\n');
}

export function describeErrors(label: string, result: LoadResult): string {
  if (result.errors === 0) return '';
  const byStatus = [...result.errorsByStatus.entries()].map(([s, n]) => `${s === 0 ? 'transport' : s}: ${n}`).join(', ');
  return `${label}: ${result.errors} errors (${byStatus})\n${result.errorSamples.map((s) => `    ${s}`).join('\n')}\n`;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)] : Number.NaN;
}

export function log(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

export function loadLine(label: string, r: LoadResult): string {
  return (
    `${label}: ${fmtRate(r.rate)} over ${r.seconds.toFixed(1)} s (${r.ok} ok, ${r.errors} errors); ` +
    `latency p50 ${fmtMs(r.latency.p50)}, p90 ${fmtMs(r.latency.p90)}, p99 ${fmtMs(r.latency.p99)}, max ${fmtMs(r.latency.max)}\n` +
    `    ${formatCpu(r.cpu)}\n` +
    `    rate per 250 ms slice (as req/s): min ${fmtRate(Math.min(...r.perSlice) * 4)}, median ${fmtRate(median(r.perSlice) * 4)}, ` +
    `max ${fmtRate(Math.max(...r.perSlice) * 4)}`
  );
}
