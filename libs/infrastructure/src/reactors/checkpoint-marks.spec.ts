import fc from 'fast-check';
import type { Position } from '../event-store/event-store.port';
import { Marks } from './checkpoint-marks';

const at = (n: number): Position => ({ commit: BigInt(n), prepare: BigInt(n) });
const n = (p: Position): number => Number(p.commit);

describe("an event reactor's checkpoint marks", () => {
  it('given no job, the checkpoint follows every event passed', () => {
    const marks = new Marks(at(0));
    marks.pass(at(1));
    marks.pass(at(2));
    expect(n(marks.settle())).toBe(2);
    expect(marks.unsettled()).toBe(0);
  });

  it('given a running job, the checkpoint stays before it, then moves past what was passed after it', () => {
    const marks = new Marks(at(0));
    marks.pass(at(1));
    const job = marks.begin(at(2));
    marks.pass(at(3));
    marks.pass(at(4));
    expect(n(marks.settle())).toBe(1);
    expect(marks.unsettled()).toBe(1);
    job.done = true;
    expect(n(marks.settle())).toBe(4);
    expect(marks.unsettled()).toBe(0);
  });

  it('given a later job done first, the checkpoint waits for the earlier one, then passes both', () => {
    const marks = new Marks(at(0));
    const first = marks.begin(at(1));
    const second = marks.begin(at(2));
    marks.pass(at(3));
    second.done = true;
    expect(n(marks.settle())).toBe(0);
    expect(marks.unsettled()).toBe(2);
    first.done = true;
    expect(n(marks.settle())).toBe(3);
  });

  it('given a job that never finishes (a stop cut it short), the checkpoint never passes it, so it runs again', () => {
    const marks = new Marks(at(5));
    marks.begin(at(6));
    const later = marks.begin(at(7));
    later.done = true;
    marks.pass(at(8));
    expect(n(marks.settle())).toBe(5);
  });

  it('for any run, the checkpoint only moves forward and stays before every unfinished job', () => {
    // A run: events in log order, each passed or begun as a job; jobs finish in any order.
    const step = fc.oneof(fc.constant({ kind: 'pass' as const }), fc.constant({ kind: 'begin' as const }), fc.record({ kind: fc.constant('finish' as const), pick: fc.nat() }));
    fc.assert(
      fc.property(fc.array(step, { maxLength: 200 }), (steps) => {
        const marks = new Marks(at(0));
        const jobs: Array<{ at: number; mark: { done: boolean } }> = [];
        let next = 1;
        let last = 0;
        for (const s of steps) {
          if (s.kind === 'pass') marks.pass(at(next++));
          else if (s.kind === 'begin') jobs.push({ at: next, mark: marks.begin(at(next++)) });
          else {
            const open = jobs.filter((j) => !j.mark.done);
            if (open.length > 0) open[s.pick % open.length].mark.done = true;
          }
          const checkpoint = n(marks.settle());
          expect(checkpoint).toBeGreaterThanOrEqual(last);
          last = checkpoint;
          const firstOpen = jobs.find((j) => !j.mark.done);
          if (firstOpen) expect(checkpoint).toBeLessThan(firstOpen.at);
          // With nothing open, everything seen is covered.
          else expect(checkpoint).toBe(next - 1);
        }
      }),
    );
  });
});
