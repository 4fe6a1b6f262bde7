import { compileFilter, decodePageToken, encodePageToken, keysetFilter, parseOrderBy, sortKeyValues, toMongoSort } from '../query';
import { findInMemory } from './in-memory';

const docs = [
  { type: 'B', displayName: 'Beta', tools: ['x'] },
  { type: 'A', displayName: 'Alpha', tools: ['y'] },
  { type: 'C', displayName: 'Gamma', tools: ['x', 'y'] },
];

describe('findInMemory', () => {
  it('filters, sorts and limits like the read store', () => {
    const where = compileFilter("tools:'x'", { tools: { type: 'string[]', path: 'tools' } });
    expect(findInMemory(docs, where, { sort: { type: -1 } }).map((d) => d.type)).toEqual(['C', 'B']);
    expect(findInMemory(docs, {}, { sort: { displayName: 1 }, limit: 2 }).map((d) => d.type)).toEqual(['A', 'B']);
  });

  it('pages with the shared keyset filters and never changes its input', () => {
    const keys = parseOrderBy('display_name desc', { display_name: 'displayName', name: 'type' }, '');
    const first = findInMemory(docs, {}, { sort: toMongoSort(keys), limit: 2 });
    const token = decodePageToken(encodePageToken({ q: 'q', after: sortKeyValues(first[1], keys) }), 'q');
    const rest = findInMemory(docs, keysetFilter(keys, token!.after), { sort: toMongoSort(keys) });
    expect([...first, ...rest].map((d) => d.type)).toEqual(['C', 'B', 'A']);
    expect(docs.map((d) => d.type)).toEqual(['B', 'A', 'C']);
  });
});

describe('filterQuery', () => {
  const people = [
    { n: 1, name: 'Ann', tags: ['x-1', 'y'], items: [{ k: 'Alpha' }] },
    { n: 2, name: 'ann', tags: ['y'], items: [{ k: 'beta' }] },
    { n: 3, name: 'Bob\n', tags: [] },
  ];
  const found = (filter: Record<string, unknown>) => findInMemory(people, filter).map((d) => d.n);

  it('matches literal patterns wherever a filter can hold them', () => {
    expect(found({ name: { $regex: '^A' } })).toEqual([1]);
    expect(found({ name: { $not: { $regex: '^A' } } })).toEqual([2, 3]);
    expect(found({ $nor: [{ name: { $regex: 'nn(?![\\s\\S])' } }] })).toEqual([3]);
    expect(found({ $or: [{ tags: { $regex: '^x\\-' } }, { $and: [{ name: { $regex: 'b' } }] }] })).toEqual([1, 3]);
    expect(found({ items: { $elemMatch: { k: { $regex: 'eta' } } } })).toEqual([2]);
    expect(found({ tags: { $elemMatch: { $regex: '^y' } } })).toEqual([1, 2]);
  });

  it('keeps regex semantics for any other $regex', () => {
    expect(found({ name: { $regex: '^a', $options: 'i' } })).toEqual([1, 2]);
    expect(found({ name: { $regex: 'b$' } })).toEqual([]);
    expect(found({ name: { $regex: '^[AB]' } })).toEqual([1, 3]);
  });
});
