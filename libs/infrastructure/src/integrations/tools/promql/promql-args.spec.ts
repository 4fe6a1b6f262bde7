import { ToolError } from '../tool-adapter.port';
import { capNames } from './promql.adapter';
import { boundedStep, capResult, durationSeconds, pointsPerSeries, queryArgument, timeSeconds } from './promql-args';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const limits = { maxSeries: 100, maxPoints: 5_000, maxBytes: 64 * 1024 };

function failure(run: () => unknown): ToolError {
  try {
    run();
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error('expected a ToolError');
}

const vectorSeries = (i: number) => ({ metric: { __name__: 'up', instance: `host-${i}` }, value: [1700000000, '1'] });
const matrixSeries = (i: number, points: number) => ({
  metric: { __name__: 'up', instance: `host-${i}` },
  values: Array.from({ length: points }, (_, p) => [1700000000 + p, String(p)]),
});

describe('PromQL arguments', () => {
  it('given durations in seconds or in Prometheus syntax, when read, then they are seconds', () => {
    expect(durationSeconds(15, 'step')).toBe(15);
    expect(durationSeconds('2.5', 'step')).toBe(2.5);
    expect(durationSeconds('30s', 'step')).toBe(30);
    expect(durationSeconds('1h30m', 'step')).toBe(5400);
    expect(durationSeconds('250ms', 'step')).toBe(0.25);
    expect(durationSeconds('1w', 'step')).toBe(604800);
  });

  it('given a duration that is zero, negative, out of order or not one, when read, then it is INVALID_ARGUMENT naming the field', () => {
    for (const bad of [0, -5, '', '0s', '5m1h', 'five minutes', '1h'.repeat(40), null, {}]) {
      const error = failure(() => durationSeconds(bad, 'step'));
      expect([bad, error.code, error.message]).toEqual([bad, 'INVALID_ARGUMENT', expect.stringContaining("'step'")]);
    }
  });

  it('given times as Unix seconds, RFC 3339, now or now-<duration>, when read, then they are Unix seconds against the call clock', () => {
    expect(timeSeconds(1700000000, 'start', NOW)).toBe(1700000000);
    expect(timeSeconds('1700000000.5', 'start', NOW)).toBe(1700000000.5);
    expect(timeSeconds('2026-01-01T00:00:00Z', 'start', NOW)).toBe(NOW / 1000);
    expect(timeSeconds('now', 'end', NOW)).toBe(NOW / 1000);
    expect(timeSeconds('now-1h', 'start', NOW)).toBe(NOW / 1000 - 3600);
    expect(failure(() => timeSeconds('yesterday', 'start', NOW)).message).toMatch(/'start' must be a time/);
    expect(failure(() => timeSeconds('2026-13-45T99:00:00Z', 'start', NOW)).code).toBe('INVALID_ARGUMENT');
  });

  it('given a query that is empty or too long, when read, then it is refused', () => {
    expect(failure(() => queryArgument({ query: '  ' })).code).toBe('INVALID_ARGUMENT');
    expect(failure(() => queryArgument({ query: 'x'.repeat(16 * 1024 + 1) })).message).toMatch(/longer than 16384/);
    expect(queryArgument({ query: 'up' })).toBe('up');
  });
});

describe('step bounding', () => {
  it('given a day at a 1s step and 5000 points per series, when bounded, then the step rises until a series has at most 5000 points', () => {
    const start = 1700000000;
    const end = start + 86400;
    const step = boundedStep(start, end, 1, 5_000);
    expect(step).toBeGreaterThan(1);
    expect(pointsPerSeries(start, end, step)).toBeLessThanOrEqual(5_000);
    expect(pointsPerSeries(start, end, step)).toBeGreaterThan(4_990);
  });

  it('given a step that already fits, when bounded, then it is kept as asked', () => {
    expect(boundedStep(0, 3600, 60, 5_000)).toBe(60);
  });

  it('given a step under a millisecond, when bounded, then it is one millisecond, the least Prometheus reads', () => {
    expect(boundedStep(100, 100, 0.0001, 5_000)).toBe(0.001);
  });

  it('given ranges and limits of every size, when bounded, then no series can exceed the limit', () => {
    for (const range of [0, 1, 59, 3600, 86400 * 365, 123456.789]) {
      for (const max of [1, 2, 11, 5_000, 11_000]) {
        const step = boundedStep(1000, 1000 + range, 0.001, max);
        expect([range, max, pointsPerSeries(1000, 1000 + range, step) <= max]).toEqual([range, max, true]);
      }
    }
  });
});

describe('capping an answer', () => {
  it('given fewer series and points than the limits, when capped, then it is whole and says nothing was cut', () => {
    const capped = capResult({ resultType: 'vector', result: [vectorSeries(1), vectorSeries(2)] }, limits);
    expect(capped).toEqual({ resultType: 'vector', result: [vectorSeries(1), vectorSeries(2)], seriesTotal: 2 });
  });

  it('given more series than maxSeries, when capped, then the first maxSeries are kept and the cut is said', () => {
    const capped = capResult({ resultType: 'vector', result: Array.from({ length: 250 }, (_, i) => vectorSeries(i)) }, limits);
    expect(capped.result).toHaveLength(100);
    expect(capped).toMatchObject({ seriesTotal: 250, truncated: true, truncation: expect.stringContaining('kept 100 of 250 series (maxSeries)') });
  });

  it('given series with more points in all than maxPoints, when capped, then whole series fit and the one crossing keeps its latest points', () => {
    const capped = capResult({ resultType: 'matrix', result: [matrixSeries(1, 6), matrixSeries(2, 6), matrixSeries(3, 6)] }, { ...limits, maxPoints: 10 });
    const result = capped.result as Array<{ values: unknown[][] }>;
    expect(result.map((s) => s.values.length)).toEqual([6, 4]);
    expect(result[1].values[0]).toEqual([1700000002, '2']);
    expect(capped).toMatchObject({ truncated: true, truncation: expect.stringContaining('kept 10 of 18 points (maxPoints)') });
  });

  it('given an answer larger than maxBytes, when capped, then whole series are dropped from the end until it fits', () => {
    const capped = capResult({ resultType: 'matrix', result: Array.from({ length: 10 }, (_, i) => matrixSeries(i, 100)) }, { ...limits, maxBytes: 8 * 1024 });
    expect(Buffer.byteLength(JSON.stringify(capped))).toBeLessThanOrEqual(8 * 1024);
    expect((capped.result as unknown[]).length).toBeGreaterThan(0);
    expect(capped.truncation).toMatch(/series to stay within 8192 bytes \(maxBytes\)/);
  });

  it('given a scalar, when capped, then it passes as is', () => {
    expect(capResult({ resultType: 'scalar', result: [1700000000, '2'] }, limits)).toMatchObject({ resultType: 'scalar', result: [1700000000, '2'] });
  });

  it('given more metric names than maxRows or maxBytes allow, when listed, then the first are kept and the cut is said', () => {
    const names = Array.from({ length: 50 }, (_, i) => `metric_${i}`);
    expect(capNames(names, 10, 64 * 1024)).toMatchObject({ metrics: names.slice(0, 10), total: 50, truncated: true, truncation: expect.stringContaining('(maxRows)') });
    const bytes = capNames(names, 500, 512);
    expect(Buffer.byteLength(JSON.stringify(bytes))).toBeLessThanOrEqual(512);
    expect(bytes.truncation).toMatch(/maxBytes/);
    expect(capNames(names, 500, 64 * 1024)).toEqual({ metrics: names, total: 50 });
  });
});
