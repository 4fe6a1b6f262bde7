import type { RecordedEvent } from '../event-store/event-store.port';
import type { ParkedEvent, WriteOp } from '../read-store/read-store.port';
import type { Projection, ProjectedEvent } from './projection';
import { describeError } from './supervisor';

/** The update operators of the read-store port (read-store.port.ts), the same on both adapters. */
const UPDATE_OPERATORS = new Set(['$set', '$unset', '$setOnInsert', '$push', '$pull', '$addToSet', '$inc']);

/**
 * The pure half of applying an event: the projection's handler, then a check that its operations are
 * ones the read store accepts. Whatever throws here is the event's (or the handler's) fault and
 * deterministic, so the caller parks the event; everything after this (read, write, commit) is I/O,
 * whose failures are retried and never park.
 */
export function projectEvent(projection: Projection, event: ProjectedEvent): WriteOp[] {
  const ops = projection.handle(event);
  for (const op of ops) checkOp(op);
  return ops;
}

function checkOp(op: WriteOp): void {
  if (op.op === 'update') {
    // for..in, not Object.entries: a rebuild checks millions of operations.
    for (const operator in op.update) {
      const fields = op.update[operator];
      if (!UPDATE_OPERATORS.has(operator)) throw new Error(`unsupported update operator ${operator} on ${op.collection} '${op.id}'`);
      if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
        throw new Error(`update operator ${operator} on ${op.collection} '${op.id}' needs an object of fields`);
      }
    }
  } else if (op.op === 'insert' && typeof op.doc._id !== 'string') {
    throw new Error(`insert into ${op.collection} needs a string _id`);
  }
}

export function parkedEvent(projection: string, record: RecordedEvent, error: unknown): ParkedEvent {
  return {
    projection,
    eventId: record.id,
    eventType: record.type,
    streamId: record.streamId,
    position: record.position,
    error: error instanceof Error ? error.message : describeError(error),
    parkedAt: new Date().toISOString(),
  };
}
