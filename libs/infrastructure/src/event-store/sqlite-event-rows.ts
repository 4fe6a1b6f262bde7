/**
 * The embedded event store's storage layout: its tables, and the rows of the events table decoded
 * into recorded events (the whole cost of reading the log, so a plain loop over raw rows).
 */
import type { EventMetadata, Position, RecordedEvent } from './event-store.port';

/**
 * A row of the events table as an array (statements in raw mode): better-sqlite3 builds arrays
 * noticeably cheaper than objects with named keys, which matters when a rebuild decodes the whole log.
 * Order: pos, stream_id, revision, event_id, type, data, metadata, created.
 */
export type EventTuple = [bigint, string, bigint, string, string, string, string, string];

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  pos       INTEGER PRIMARY KEY AUTOINCREMENT,
  stream_id TEXT    NOT NULL,
  revision  INTEGER NOT NULL,
  event_id  TEXT    NOT NULL UNIQUE,
  type      TEXT    NOT NULL,
  data      TEXT    NOT NULL,
  metadata  TEXT    NOT NULL,
  created   TEXT    NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS events_stream_revision ON events (stream_id, revision);
CREATE TABLE IF NOT EXISTS snapshots (
  stream_id TEXT PRIMARY KEY,
  revision  INTEGER NOT NULL,
  fold      TEXT    NOT NULL,
  state     TEXT    NOT NULL
) WITHOUT ROWID;
`;

export function seqPosition(seq: bigint): Position {
  return { commit: seq, prepare: seq };
}

/**
 * Decodes a page. This is the whole cost of reading the log for a rebuild or a catch-up, so it is a
 * plain indexed loop over raw rows (arrays, no per-row key lookups), one JSON.parse per JSON column, and
 * a position literal reusing the one bigint for both parts (SQLite has a single sequence).
 */
export function decodeRows(rows: EventTuple[]): RecordedEvent[] {
  const out = new Array<RecordedEvent>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    const pos = r[0];
    out[i] = {
      id: r[3],
      streamId: r[1],
      revision: r[2],
      position: { commit: pos, prepare: pos },
      type: r[4],
      data: JSON.parse(r[5]) as Record<string, unknown>,
      metadata: JSON.parse(r[6]) as EventMetadata,
      created: r[7],
    };
  }
  return out;
}
