import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { loadSettings, type Settings } from '@svc/infrastructure/config/env';
import { createEventStore } from '@svc/infrastructure/event-store';
import {
  type EventStore,
  type Position,
  positionFromString,
  positionToString,
} from '@svc/infrastructure/event-store/event-store.port';
import { createReadStore } from '@svc/infrastructure/read-store';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';

/** A wrong command line: the CLI prints the message and the usage, and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The stores the processes use (same environment), opened on first use so `help` touches nothing. */
export class Context {
  private eventStore: EventStore | null = null;
  private readStore: Promise<ReadStore> | null = null;

  constructor(
    readonly json: boolean,
    readonly settings: Settings = loadSettings(),
    private readonly write: (text: string) => void = (text) => process.stdout.write(text),
  ) {}

  /** SQLite positions are one dense sequence, so their difference counts events; EventStoreDB's are byte offsets. */
  get sequencePositions(): boolean {
    return !this.settings.eventStoreUrl;
  }

  /**
   * The embedded stores live in SVC_DATA_DIR: a directory that does not exist is a wrong setting (or a
   * system that never ran), not an empty system, and the CLI must not create empty stores there.
   */
  private embeddedDataDir(): void {
    if (!existsSync(this.settings.dataDir)) {
      throw new Error(`data directory ${path.resolve(this.settings.dataDir)} does not exist: set SVC_DATA_DIR to the directory the api uses (default ./data, created by its first start)`);
    }
  }

  events(): EventStore {
    if (!this.eventStore && !this.settings.eventStoreUrl) this.embeddedDataDir();
    this.eventStore ??= createEventStore({ EVENTSTORE_URL: this.settings.eventStoreUrl, SVC_DATA_DIR: this.settings.dataDir });
    return this.eventStore;
  }

  reads(): Promise<ReadStore> {
    if (!this.readStore && !this.settings.mongoUrl) this.embeddedDataDir();
    this.readStore ??= createReadStore({ MONGODB_URL: this.settings.mongoUrl, SVC_DATA_DIR: this.settings.dataDir });
    return this.readStore;
  }

  /** Prints the machine shape with --json, else the human rendering of the same value. */
  print<T>(value: T, human: (value: T) => string): void {
    this.write(this.json ? `${JSON.stringify(value, jsonSafe, 2)}\n` : `${human(value)}\n`);
  }

  /** One item of a stream of results: a compact JSON line (NDJSON) with --json, else its human line. */
  line<T>(value: T, human: (value: T) => string): void {
    this.write(this.json ? `${JSON.stringify(value, jsonSafe)}\n` : `${human(value)}\n`);
  }

  async close(): Promise<void> {
    await this.eventStore?.close();
    await (await this.readStore)?.close();
  }
}

/** Positions print as `commit/prepare` (SQLite: just the sequence number, both parts are equal). */
export function showPosition(p: Position): string {
  return p.commit === p.prepare ? String(p.commit) : positionToString(p);
}

export function parsePosition(text: string, option: string): Position {
  if (!/^-?\d+(\/-?\d+)?$/.test(text)) throw new UsageError(`${option} must be a position like 42 or 1234/1230, got '${text}'`);
  return positionFromString(text);
}

export function parseCount(text: string | undefined, option: string, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${option} must be a positive integer, got '${text}'`);
  return n;
}

function jsonSafe(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

/** Left-aligned columns for human output. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}
