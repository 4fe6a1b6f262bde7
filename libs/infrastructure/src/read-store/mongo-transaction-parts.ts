/**
 * How the MongoDB read store splits a page's batches into transactions: MongoDB caps the operations
 * one transaction may hold, and no checkpoint may commit before every operation of its batch.
 */
import type { Position } from '../event-store/event-store.port';
import type { ProjectionBatch, WriteOp } from './read-store.port';

export interface TransactionPart {
  ops: WriteOp[];
  /** Checkpoints whose batches end in this part (the last position per name). */
  checkpoints: Map<string, Position>;
}

/**
 * Splits batches into transactions of at most `maxOps` operations, in order. A batch's checkpoint
 * goes with the part holding its last operation (a batch without operations joins the current part),
 * so no checkpoint ever commits before every operation of its batch.
 */
export function transactionParts(batches: readonly ProjectionBatch[], maxOps: number): TransactionPart[] {
  const parts: TransactionPart[] = [];
  let current: TransactionPart = { ops: [], checkpoints: new Map() };
  for (const batch of batches) {
    let from = 0;
    while (batch.ops.length - from > maxOps - current.ops.length) {
      const room = maxOps - current.ops.length;
      for (let i = from; i < from + room; i++) current.ops.push(batch.ops[i]);
      from += room;
      parts.push(current);
      current = { ops: [], checkpoints: new Map() };
    }
    for (let i = from; i < batch.ops.length; i++) current.ops.push(batch.ops[i]);
    current.checkpoints.set(batch.checkpoint, batch.position);
  }
  if (current.ops.length > 0 || current.checkpoints.size > 0) parts.push(current);
  return parts;
}
