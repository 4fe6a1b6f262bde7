/** Small numeric helpers for the benchmark: percentiles over recorded samples (milliseconds). */

/** Growable float64 buffer: cheaper to record into than a number[] of boxed values. */
export class Samples {
  private data = new Float64Array(1 << 14);
  private n = 0;

  push(value: number): void {
    if (this.n === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.n++] = value;
  }

  get count(): number {
    return this.n;
  }

  /** Sorted copy of the samples. */
  sorted(): Float64Array {
    return this.data.slice(0, this.n).sort();
  }
}

export interface Summary {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentile of sorted data, `p` in [0, 100]. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function summarize(samples: Samples): Summary {
  const sorted = samples.sorted();
  let total = 0;
  for (const v of sorted) total += v;
  return {
    count: sorted.length,
    mean: sorted.length ? total / sorted.length : Number.NaN,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1] : Number.NaN,
  };
}

export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  return ms < 10 ? `${ms.toFixed(2)} ms` : `${ms.toFixed(1)} ms`;
}

export function fmtRate(perSecond: number): string {
  if (!Number.isFinite(perSecond)) return 'n/a';
  return `${Math.round(perSecond).toLocaleString('en-US')}/s`;
}
