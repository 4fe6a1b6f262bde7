/**
 * Transient faults of the production stores, recognised in one place by the clients' own error
 * classes: the answer is UNAVAILABLE (503 with Retry-After) rather than INTERNAL, since the same
 * request may well succeed in a moment, and repeating a write with the same AIP-155 `request_id`
 * is safe (the command service finds the events that request already appended and answers them).
 */
import { ErrorType, isCommandError } from '@eventstore/db-client';
import { DomainError } from '@svc/domain/shared/domain-error';
import { MongoError, MongoErrorLabel, MongoNetworkError, MongoOperationTimeoutError, MongoServerSelectionError } from 'mongodb';

/** What a 503 for a store fault asks the client to wait (Retry-After): a leader election or a failover takes about that. */
export const STORE_RETRY_AFTER_SECONDS = 1;

/** EventStoreDB answers that say "not now": the node is a follower, unreachable, or did not answer in time. */
const ESDB_TRANSIENT: ReadonlySet<string> = new Set([ErrorType.NOT_LEADER, ErrorType.UNAVAILABLE, ErrorType.DEADLINE_EXCEEDED, ErrorType.TIMEOUT]);

/**
 * Server error codes the drivers' retryable reads and writes specifications call retryable (a
 * primary stepping down, a node shutting down or unreachable); the driver has already retried once.
 * https://github.com/mongodb/specifications/blob/master/source/retryable-reads/retryable-reads.md#retryable-error
 */
const MONGO_RETRYABLE_CODES: ReadonlySet<number> = new Set([6, 7, 89, 91, 134, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436]);

const MONGO_RETRYABLE_LABELS = [
  MongoErrorLabel.RetryableWriteError,
  MongoErrorLabel.TransientTransactionError,
  MongoErrorLabel.PoolRequestedRetry,
  MongoErrorLabel.RetryableError,
] as const;

export interface StoreFault {
  store: 'eventstore' | 'mongodb';
  /** A short name for the log and the error's metadata: `not-leader`, `server-selection`, ... */
  kind: string;
}

/** The transient store fault `error` is (or was caused by), or undefined. */
export function storeFault(error: unknown): StoreFault | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (isCommandError(e) && ESDB_TRANSIENT.has(e.type)) return { store: 'eventstore', kind: e.type };
    if (e instanceof MongoServerSelectionError) return { store: 'mongodb', kind: 'server-selection' };
    if (e instanceof MongoNetworkError) return { store: 'mongodb', kind: 'network' };
    if (e instanceof MongoOperationTimeoutError) return { store: 'mongodb', kind: 'timeout' };
    if (e instanceof MongoError) {
      if (typeof e.code === 'number' && MONGO_RETRYABLE_CODES.has(e.code)) return { store: 'mongodb', kind: `code-${e.code}` };
      const label = MONGO_RETRYABLE_LABELS.find((l) => e.hasErrorLabel(l));
      if (label) return { store: 'mongodb', kind: label };
    }
  }
  return undefined;
}

/** UNAVAILABLE with Retry-After for a transient store fault, or undefined when `error` is not one. */
export function storeUnavailable(error: unknown): DomainError | undefined {
  const fault = storeFault(error);
  if (!fault) return undefined;
  const what = fault.store === 'eventstore' ? 'EventStoreDB' : 'MongoDB';
  return new DomainError('UNAVAILABLE', `${what} is unavailable for a moment (${fault.kind}); retry the request (a write repeated with the same request_id is not applied twice)`, 'STORE_UNAVAILABLE', {
    store: fault.store,
    fault: fault.kind,
    retryAfterSeconds: String(STORE_RETRY_AFTER_SECONDS),
  });
}
