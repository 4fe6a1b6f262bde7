import fc from 'fast-check';
import { update as mingoUpdate } from 'mingo';
import { applyUpdate } from './document-update';
import type { Doc, Update } from './read-store.port';

type Modifier = Parameters<typeof mingoUpdate>[1];

describe('applyUpdate', () => {
  it('applies $setOnInsert only when the update inserts', () => {
    const inserted: Doc = { _id: 'a' };
    applyUpdate(inserted, { $set: { title: 'T' }, $setOnInsert: { createTime: 'now' } }, true);
    expect(inserted).toEqual({ _id: 'a', title: 'T', createTime: 'now' });
    const existing: Doc = { _id: 'a', createTime: 'then' };
    applyUpdate(existing, { $set: { title: 'T' }, $setOnInsert: { createTime: 'now' } }, false);
    expect(existing).toEqual({ _id: 'a', createTime: 'then', title: 'T' });
  });

  it('hands operators other than $set/$unset to mingo', () => {
    const doc: Doc = { _id: 'a', tags: ['x'], n: 1 };
    applyUpdate(doc, { $push: { tags: 'y' }, $inc: { n: 2 } }, false);
    expect(doc).toEqual({ _id: 'a', tags: ['x', 'y'], n: 3 });
  });

  // The direct $set/$unset path is a shortcut past mingo: it must leave what mingo would leave.
  it('sets and unsets plain dotted paths exactly as mingo does', () => {
    const segment = fc.constantFrom('a', 'b', 'c');
    const path = fc.array(segment, { minLength: 1, maxLength: 3 }).map((segs) => segs.join('.'));
    const value = fc.oneof(fc.integer(), fc.string({ maxLength: 3 }), fc.constant(null), fc.dictionary(segment, fc.integer(), { maxKeys: 2 }));
    const doc = fc.dictionary(segment, fc.oneof(value, fc.dictionary(segment, value, { maxKeys: 2 })), { maxKeys: 3 });
    const update = fc.record(
      { $set: fc.dictionary(path, value, { minKeys: 1, maxKeys: 3 }), $unset: fc.dictionary(path, fc.constant(''), { minKeys: 1, maxKeys: 2 }) },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(doc, update, (start, upd) => {
        fc.pre(Object.keys(upd).length > 0);
        const ours = structuredClone({ _id: 'x', ...start }) as Doc;
        const theirs = structuredClone(ours);
        let expected: unknown;
        try {
          mingoUpdate(theirs, upd as Modifier);
          expected = theirs;
        } catch (err) {
          expected = err instanceof Error ? 'throws' : err;
        }
        let actual: unknown;
        try {
          applyUpdate(ours, upd as Update, false);
          actual = ours;
        } catch (err) {
          actual = err instanceof Error ? 'throws' : err;
        }
        expect(actual).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });
});
