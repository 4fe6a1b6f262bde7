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
