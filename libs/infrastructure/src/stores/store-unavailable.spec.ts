import { convertToCommandError, DeadlineExceededError, NotLeaderError, StreamNotFoundError, UnavailableError, WrongExpectedVersionError } from '@eventstore/db-client';
import { MongoError, MongoNetworkError, MongoNetworkTimeoutError, MongoServerError, MongoServerSelectionError, type TopologyDescription } from 'mongodb';
import { storeUnavailable } from './store-unavailable';

/** A gRPC ServiceError as @grpc/grpc-js hands it to the client: a status code and trailing metadata. */
const serviceError = (code: number, metadata: Record<string, string> = {}) =>
  Object.assign(new Error(`${code} ${metadata.exception ?? ''}`), { code, details: '', metadata: { getMap: () => metadata } });

describe('storeUnavailable: transient store faults answer UNAVAILABLE with Retry-After', () => {
  it('recognises EventStoreDB not-leader, unavailable and deadline-exceeded, as the client converts them', () => {
    const notLeader = convertToCommandError(serviceError(5, { exception: 'not-leader', 'leader-endpoint-host': '10.0.0.2', 'leader-endpoint-port': '2113' }));
    expect(notLeader).toBeInstanceOf(NotLeaderError);
    const unavailable = convertToCommandError(serviceError(14));
    expect(unavailable).toBeInstanceOf(UnavailableError);
    const deadline = convertToCommandError(serviceError(4));
    expect(deadline).toBeInstanceOf(DeadlineExceededError);
    for (const [error, kind] of [[notLeader, 'not-leader'], [unavailable, 'unavailable'], [deadline, 'deadline-exceeded']] as const) {
      expect(storeUnavailable(error)).toMatchObject({
        code: 'UNAVAILABLE',
        reason: 'STORE_UNAVAILABLE',
        metadata: { store: 'eventstore', fault: kind, retryAfterSeconds: '1' },
      });
    }
  });

  it('recognises MongoDB server selection, network errors and retryable codes or labels', () => {
    const cases: Array<[Error, string]> = [
      [new MongoServerSelectionError('Server selection timed out after 30000 ms', {} as TopologyDescription), 'server-selection'],
      [new MongoNetworkError('connection 4 to 10.0.0.5:27017 closed'), 'network'],
      [new MongoNetworkTimeoutError('connection timed out'), 'network'],
      [new MongoServerError({ code: 10107, errmsg: 'not primary' }), 'code-10107'],
    ];
    const labelled = new MongoError('write failed during a failover');
    labelled.addErrorLabel('RetryableWriteError');
    cases.push([labelled, 'RetryableWriteError']);
    for (const [error, kind] of cases) expect(storeUnavailable(error)?.metadata).toMatchObject({ store: 'mongodb', fault: kind });
  });

  it('looks through a wrapping error to its cause', () => {
    const wrapped = new Error('reading the projection failed', { cause: new MongoNetworkError('socket hang up') });
    expect(storeUnavailable(wrapped)?.code).toBe('UNAVAILABLE');
  });

  it('leaves everything else alone: a bug, a refusal, a conflict', () => {
    expect(storeUnavailable(new TypeError('x is undefined'))).toBeUndefined();
    expect(storeUnavailable(new MongoServerError({ code: 11000, errmsg: 'E11000 duplicate key' }))).toBeUndefined();
    expect(storeUnavailable(new StreamNotFoundError(undefined, 'thing-acme:a'))).toBeUndefined();
    expect(storeUnavailable(new WrongExpectedVersionError(undefined, { streamName: 'thing-acme:a', expected: 1n, current: 2n }))).toBeUndefined();
  });
});
