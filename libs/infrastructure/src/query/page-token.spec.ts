import { find, Query } from 'mingo';
import { parseOrderBy, toMongoSort } from './order-by';
import {
  decodePageToken,
  encodePageToken,
  keysetFilter,
  pageSize,
  queryFingerprint,
  sortKeyValues,
} from './page-token';
import { invalidMessage } from '@svc/domain/shared/testing';

type Doc = Record<string, unknown>;


describe('page tokens', () => {
  const q = queryFingerprint({ filter: "a = 'x'", orderBy: 'create_time desc', showDeleted: false });

  it('round-trips', () => {
    const token = encodePageToken({ q, after: ['2024-01-01T00:00:00.000Z', null, 3, true, 'notes/1'] });
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodePageToken(token, q)).toEqual({ q, after: ['2024-01-01T00:00:00.000Z', null, 3, true, 'notes/1'] });
  });

  it('treats an absent or empty token as the first page', () => {
    expect(decodePageToken(undefined, q)).toBeNull();
    expect(decodePageToken('', q)).toBeNull();
  });

  it('rejects garbage and tampering', () => {
    const token = encodePageToken({ q, after: ['notes/1'] });
    const invalid = 'page_token is invalid';
    expect(invalidMessage(() => decodePageToken('not a token!', q))).toBe(invalid);
    expect(invalidMessage(() => decodePageToken(token.slice(0, -3), q))).toBe(invalid);
    expect(invalidMessage(() => decodePageToken(`x${token}`, q))).toBe(invalid);
    expect(invalidMessage(() => decodePageToken(Buffer.from('[1,2]').toString('base64url'), q))).toBe(invalid);
    expect(invalidMessage(() => decodePageToken(Buffer.from('{"q":"x","after":[]}').toString('base64url'), q))).toBe(invalid);
    // Operators smuggled into sort values would reach the query document.
    const smuggled = Buffer.from(JSON.stringify({ q, after: [{ $gt: '' }] })).toString('base64url');
    expect(invalidMessage(() => decodePageToken(smuggled, q))).toBe(invalid);
  });

  it('rejects a token issued for another query', () => {
    const other = queryFingerprint({ filter: "a = 'y'", orderBy: 'create_time desc', showDeleted: false });
    const token = encodePageToken({ q: other, after: ['notes/1'] });
    expect(invalidMessage(() => decodePageToken(token, q))).toBe(
      'page_token does not match the request: filter, order_by and show_deleted must not change between pages',
    );
  });
});

describe('queryFingerprint', () => {
  it('is a 16-hex-digit hash that ignores insignificant differences', () => {
    const base = queryFingerprint({ filter: "a = 'x'", orderBy: 'create_time desc, name', showDeleted: false });
    expect(base).toMatch(/^[0-9a-f]{16}$/);
    expect(queryFingerprint({ filter: "  a = 'x' ", orderBy: 'create_time  DESC,name', showDeleted: false })).toBe(base);
    expect(queryFingerprint({ filter: "a = 'x'", orderBy: 'create_time desc,name' })).toBe(base);
  });

  it('changes with each input', () => {
    const base = { filter: "a = 'x'", orderBy: 'create_time', showDeleted: false, extra: { parent: 'agents/1', x: 1 } };
    const fp = queryFingerprint(base);
    expect(queryFingerprint({ ...base, filter: "a = 'y'" })).not.toBe(fp);
    expect(queryFingerprint({ ...base, orderBy: 'create_time desc' })).not.toBe(fp);
    expect(queryFingerprint({ ...base, showDeleted: true })).not.toBe(fp);
    expect(queryFingerprint({ ...base, extra: { parent: 'agents/2', x: 1 } })).not.toBe(fp);
    expect(queryFingerprint({ ...base, extra: { x: 1, parent: 'agents/1' } })).toBe(fp);
    expect(queryFingerprint({ ...base, filter: "a = 'x  '" })).not.toBe(queryFingerprint({ ...base, filter: "a = 'x '" }));
  });
});

describe('keysetFilter', () => {
  it('expands the classic disjunction with per-key direction', () => {
    const keys = [
      { path: 'a', direction: 1 as const },
      { path: 'b', direction: -1 as const },
      { path: 'name', direction: 1 as const },
    ];
    expect(keysetFilter(keys, [1, 'y', 'n'])).toEqual({
      $or: [
        { a: { $gt: 1 } },
        { $and: [{ a: { $eq: 1 } }, { $or: [{ b: { $lt: 'y' } }, { b: { $eq: null } }] }] },
        { $and: [{ a: { $eq: 1 } }, { b: { $eq: 'y' } }, { name: { $gt: 'n' } }] },
      ],
    });
    expect(keysetFilter([{ path: 'a', direction: 1 }, { path: 'name', direction: 1 }], [null, 'n'])).toEqual({
      $or: [{ a: { $ne: null } }, { $and: [{ a: { $eq: null } }, { name: { $gt: 'n' } }] }],
    });
    // Nothing comes after null descending, so that disjunct disappears.
    expect(keysetFilter([{ path: 'a', direction: -1 }, { path: 'name', direction: 1 }], [null, 'n'])).toEqual({
      $and: [{ a: { $eq: null } }, { name: { $gt: 'n' } }],
    });
  });

  it('rejects values that do not fit the keys', () => {
    expect(invalidMessage(() => keysetFilter([{ path: 'a', direction: 1 }], [1, 2]))).toBe('page_token is invalid');
  });

  const docs: Doc[] = [
    { name: 'r/01', createTime: '2024-01-01T00:00:00.000Z', score: 5, group: 'b' },
    { name: 'r/02', createTime: '2024-01-01T00:00:00.000Z', score: 5, group: 'a' },
    { name: 'r/03', createTime: '2024-01-02T00:00:00.000Z', score: null, group: 'a' },
    { name: 'r/04', createTime: '2024-01-02T00:00:00.000Z', group: 'b' },
    { name: 'r/05', createTime: '2024-01-03T00:00:00.000Z', score: 1, group: 'a' },
    { name: 'r/06', createTime: '2024-01-01T00:00:00.000Z', score: 9, group: 'c' },
    { name: 'r/07', createTime: '2024-01-04T00:00:00.000Z', score: 5 },
    { name: 'r/08', createTime: '2024-01-04T00:00:00.000Z', score: 5, group: 'a' },
    { name: 'r/09', createTime: '2024-01-01T00:00:00.000Z', score: 1, group: 'c' },
    { name: 'r/10', createTime: '2024-01-03T00:00:00.000Z', score: null },
    { name: 'r/11', createTime: '2024-01-02T00:00:00.000Z', score: 9, group: 'b' },
    { name: 'r/12', createTime: '2024-01-05T00:00:00.000Z', score: 2, group: 'a' },
  ];
  const sortable = { create_time: 'createTime', score: 'score', group: 'group' };

  /** Pages through `docs` the way the list handlers will, returning names page by page. */
  function pageThrough(orderBy: string, size: number, filter: Doc = {}): string[][] {
    const keys = parseOrderBy(orderBy, sortable, '');
    const fp = queryFingerprint({ orderBy });
    const pages: string[][] = [];
    let token = '';
    for (let guard = 0; guard < 50; guard++) {
      const decoded = decodePageToken(token, fp);
      const where = decoded ? { $and: [filter, keysetFilter(keys, decoded.after)] } : filter;
      const page = find(docs, where).sort(toMongoSort(keys)).limit(size).all() as Doc[];
      if (page.length === 0) break;
      pages.push(page.map((d) => String(d.name)));
      if (page.length < size) break;
      token = encodePageToken({ q: fp, after: sortKeyValues(page[page.length - 1], keys) });
    }
    return pages;
  }

  const fullOrder = (orderBy: string) =>
    (find(docs, {}).sort(toMongoSort(parseOrderBy(orderBy, sortable, ''))).all() as Doc[]).map((d) => String(d.name));

  it.each([
    'create_time',
    'create_time desc',
    'score',
    'score desc',
    'group, score desc',
    'group desc, create_time desc, score',
    'score desc, create_time',
    'name desc',
  ])('pages through "%s" contiguously without duplicates', (orderBy) => {
    const expected = fullOrder(orderBy);
    expect(expected).toHaveLength(docs.length);
    for (const size of [1, 2, 3, 5, 12]) {
      const pages = pageThrough(orderBy, size);
      expect(pages.flat()).toEqual(expected);
      expect(pages.slice(0, -1).every((p) => p.length === size)).toBe(true);
    }
  });

  it('combines with a filter', () => {
    const filter = { group: 'a' };
    const pages = pageThrough('score desc', 2, filter);
    expect(pages.flat()).toEqual((find(docs, filter).sort({ score: -1, name: 1 }).all() as Doc[]).map((d) => d.name));
  });

  it('reads sort-key values, missing as null', () => {
    expect(sortKeyValues({ a: { b: 2 }, name: 'n' }, [{ path: 'a.b', direction: 1 }, { path: 'c', direction: 1 }])).toEqual([2, null]);
    expect(new Query(keysetFilter([{ path: 'score', direction: 1 }], [null])).test({ score: 0 })).toBe(true);
  });
});

describe('pageSize', () => {
  it('applies default and cap', () => {
    expect(pageSize(undefined)).toBe(50);
    expect(pageSize(0)).toBe(50);
    expect(pageSize(-3)).toBe(50);
    expect(pageSize(10)).toBe(10);
    expect(pageSize(5000)).toBe(1000);
    expect(pageSize('20')).toBe(20);
    expect(pageSize(500, { default: 100, max: 100 })).toBe(100);
    expect(pageSize(undefined, { default: 100, max: 100 })).toBe(100);
  });

  it('rejects non-integers', () => {
    expect(invalidMessage(() => pageSize(2.5))).toBe("page_size must be an integer, got '2.5'");
    expect(invalidMessage(() => pageSize('ten'))).toBe("page_size must be an integer, got 'ten'");
    expect(invalidMessage(() => pageSize(Number.NaN))).toBe("page_size must be an integer, got 'NaN'");
  });
});
