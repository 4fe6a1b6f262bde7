import { sortDocs } from './mongo-sort-order';
import type { Doc } from './read-store.port';

const ids = (docs: Doc[]) => docs.map((d) => d._id);

describe('sortDocs (MongoDB sort order)', () => {
  it('orders by type bracket: empty array, null and missing, numbers, strings, objects, booleans', () => {
    const docs = [
      { _id: 'bool', v: false },
      { _id: 'obj', v: { a: 1 } },
      { _id: 'str', v: '1' },
      { _id: 'num', v: 2 },
      { _id: 'missing' },
      { _id: 'null', v: null },
      { _id: 'empty', v: [] },
    ];
    expect(ids(sortDocs(docs, { v: 1 }))).toEqual(['empty', 'missing', 'null', 'num', 'str', 'obj', 'bool']);
  });

  it('sorts an array by its smallest element ascending and its largest descending', () => {
    const docs = [
      { _id: 'a', v: [5, 1] },
      { _id: 'b', v: 3 },
      { _id: 'c', v: [2, 4] },
    ];
    expect(ids(sortDocs(docs, { v: 1 }))).toEqual(['a', 'c', 'b']);
    expect(ids(sortDocs(docs, { v: -1 }))).toEqual(['a', 'c', 'b']);
  });

  it('compares strings by code point, as SQLite and MongoDB do, not by UTF-16 unit', () => {
    const docs = [
      { _id: 'emoji', v: '\u{1F600}' },
      { _id: 'private', v: '\uE000' },
    ];
    expect(ids(sortDocs(docs, { v: 1 }))).toEqual(['private', 'emoji']);
  });

  it('breaks ties by _id ascending, also after a descending key', () => {
    const docs = [
      { _id: 'b', v: 1 },
      { _id: 'c', v: 2 },
      { _id: 'a', v: 1 },
    ];
    expect(ids(sortDocs(docs, { v: -1 }))).toEqual(['c', 'a', 'b']);
  });
});
