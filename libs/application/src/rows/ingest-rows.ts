/**
 * IngestRows, shared by the api (`svc.rows.v1.RowsService/IngestRows`) and the CLI (`rows ingest`):
 * checks the rows and appends them as one `RowsIngested` event in a stream of their own. With a
 * request_id the stream's ID derives from it, so a retried request appends nothing.
 */
import { randomUUID } from 'node:crypto';
import { v5 as uuidv5 } from 'uuid';
import { rowsStreamId } from '@svc/contracts/rows/rows.contract';
import { rowsDecider } from '@svc/domain/rows/rows.decider';
import type { Actor } from '@svc/domain/shared/decider';
import { positionToString } from '@svc/infrastructure/event-store/event-store.port';
import type { CommandSender } from '../commands/command-sender';
import { DecideAndAppend } from '../commands/decide-and-append';

const INGESTION_NAMESPACE = '3c9d1f4a-7b2e-4f8c-a6d5-1e0b9c8f7a62';

export interface IngestResult {
  ingestion: string;
  table: string;
  rowCount: number;
  /** False when request_id matched an earlier ingestion (nothing appended). */
  appended: boolean;
  position: string | null;
}

export async function ingestRows(bus: CommandSender, actor: Actor, request: { table: unknown; rows: unknown; requestId?: string }): Promise<IngestResult> {
  const id = request.requestId ? uuidv5(`${actor.org}|${request.requestId}`, INGESTION_NAMESPACE) : randomUUID();
  // Nothing reads an ingestion back: the answer comes as soon as it is appended (no projection to wait for).
  const handled = await bus.execute(
    new DecideAndAppend({
      decider: rowsDecider,
      streamId: rowsStreamId(actor.org, id),
      command: { type: 'IngestRows', actor, table: request.table, rows: request.rows },
      context: { actor, requestId: request.requestId },
      create: true,
    }),
  );
  return {
    ingestion: `ingestions/${id}`,
    table: String(request.table),
    rowCount: Array.isArray(request.rows) ? request.rows.length : 0,
    appended: !handled.replayed && handled.events.length > 0,
    position: handled.position ? positionToString(handled.position) : null,
  };
}
