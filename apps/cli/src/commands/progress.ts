import type { RebuildProgress } from '@svc/infrastructure/projection/rebuild';

/**
 * Rebuild progress on stderr, so stdout keeps exactly the command's result (one JSON document with
 * --json): NDJSON lines with --json, a redrawn bar with rate and ETA on a terminal, nothing otherwise.
 */
export class ProgressReporter {
  private last = '';
  private drawn = false;

  constructor(
    private readonly json: boolean,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {}

  report(progress: RebuildProgress): void {
    // The same progress seen twice (polled from the projector's heartbeat) is shown once.
    const key = `${progress.projection}:${progress.events}:${progress.position}`;
    if (key === this.last) return;
    this.last = key;
    if (this.json) {
      this.stream.write(`${JSON.stringify({ type: 'progress', ...progress })}\n`);
    } else if (this.stream.isTTY) {
      this.stream.write(`\r${bar(progress)}\x1b[K`);
      this.drawn = true;
    }
  }

  /** Ends the bar's line (a result printed next starts on a fresh line). */
  done(): void {
    if (this.drawn) this.stream.write('\n');
    this.drawn = false;
  }
}

const WIDTH = 30;

/** `notes  [##########....................]  33%  1,204 events  5,120 ev/s  ETA 0.4 s` */
export function bar(p: RebuildProgress): string {
  const filled = Math.round(p.fraction * WIDTH);
  const eta = p.etaSeconds === null ? 'ETA ?' : `ETA ${p.etaSeconds.toFixed(1)} s`;
  return [
    p.projection,
    `[${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}]`,
    `${String(Math.floor(p.fraction * 100)).padStart(3)}%`,
    `${p.events.toLocaleString('en')} events`,
    `${p.rate.toLocaleString('en')} ev/s`,
    eta,
  ].join('  ');
}
