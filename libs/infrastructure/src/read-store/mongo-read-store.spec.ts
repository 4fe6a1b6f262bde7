import type { Position } from '../event-store/event-store.port';
import { transactionParts } from './mongo-transaction-parts';
import type { ProjectionBatch, WriteOp } from './read-store.port';

const pos = (n: number): Position => ({ commit: BigInt(n), prepare: BigInt(n) });
const ops = (label: string, count: number): WriteOp[] =>
  Array.from({ length: count }, (_, i) => ({ op: 'delete', collection: label, id: `${label}${i}` }));
const batch = (checkpoint: string, at: number, count: number): ProjectionBatch => ({ checkpoint, position: pos(at), ops: ops(checkpoint, count) });
/** A part as `[op ids, checkpoints]`, for compact expectations. */
const shape = (parts: ReturnType<typeof transactionParts>) =>
  parts.map((p) => [p.ops.map((o) => (o.op === 'delete' ? o.id : '?')).join(','), Object.fromEntries([...p.checkpoints].map(([k, v]) => [k, Number(v.commit)]))]);

describe('transactionParts (MongoDB: operations per transaction are capped)', () => {
  it('keeps a page within the cap in one transaction with every checkpoint', () => {
    expect(shape(transactionParts([batch('a', 5, 2), batch('b', 5, 0), batch('c', 5, 1)], 3))).toEqual([['a0,a1,c0', { a: 5, b: 5, c: 5 }]]);
  });

  it('splits a large batch; its checkpoint commits only with its last operations', () => {
    expect(shape(transactionParts([batch('a', 9, 7)], 3))).toEqual([
      ['a0,a1,a2', {}],
      ['a3,a4,a5', {}],
      ['a6', { a: 9 }],
    ]);
  });

  it('fills each transaction across batches, in order, and never exceeds the cap', () => {
    const parts = transactionParts([batch('a', 4, 2), batch('b', 4, 3), batch('c', 4, 0), batch('d', 4, 3)], 3);
    expect(parts.every((p) => p.ops.length <= 3)).toBe(true);
    expect(parts.flatMap((p) => p.ops)).toEqual([...ops('a', 2), ...ops('b', 3), ...ops('d', 3)]);
    expect(shape(parts)).toEqual([
      ['a0,a1,b0', { a: 4 }],
      ['b1,b2,d0', { b: 4, c: 4 }],
      ['d1,d2', { d: 4 }],
    ]);
  });

  it('the last position wins when two batches name one checkpoint', () => {
    expect(shape(transactionParts([batch('a', 3, 1), batch('a', 8, 1)], 10))).toEqual([['a0,a0', { a: 8 }]]);
  });

  it('an empty list is no transaction', () => {
    expect(transactionParts([], 1000)).toEqual([]);
  });
});
