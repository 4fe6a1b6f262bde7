import { parseOrderBy, toMongoSort } from './order-by';
import { invalidMessage } from '@svc/domain/shared/testing';

const sortable = { create_time: 'createTime', display_name: 'displayName', update_time: 'updateTime' };


describe('parseOrderBy', () => {
  it('parses fields with optional directions and appends name as tiebreaker', () => {
    expect(parseOrderBy('create_time desc, display_name', sortable, 'create_time')).toEqual([
      { field: 'create_time', path: 'createTime', direction: -1 },
      { field: 'display_name', path: 'displayName', direction: 1 },
      { field: 'name', path: 'name', direction: 1 },
    ]);
    expect(parseOrderBy('  update_time   ASC ,create_time DESC  ', sortable, '').map((k) => k.direction)).toEqual([1, -1, 1]);
  });

  it('uses the default order when blank', () => {
    expect(parseOrderBy(undefined, sortable, 'create_time desc')).toEqual([
      { field: 'create_time', path: 'createTime', direction: -1 },
      { field: 'name', path: 'name', direction: 1 },
    ]);
    expect(parseOrderBy('  ', sortable, '')).toEqual([{ field: 'name', path: 'name', direction: 1 }]);
  });

  it('does not append name when already listed', () => {
    expect(parseOrderBy('name desc', sortable, '')).toEqual([{ field: 'name', path: 'name', direction: -1 }]);
    expect(parseOrderBy('name, create_time', sortable, '').map((k) => k.field)).toEqual(['name', 'create_time']);
  });

  it('with nameSortable false, refuses an explicit name but still breaks ties by it', () => {
    expect(parseOrderBy('update_time', sortable, '', { nameSortable: false })).toEqual([
      { field: 'update_time', path: 'updateTime', direction: 1 },
      { field: 'name', path: 'name', direction: 1 },
    ]);
    expect(() => parseOrderBy('name desc', sortable, '', { nameSortable: false })).toThrow(/unknown field 'name'; sortable fields are: create_time, display_name, update_time/);
  });

  it('does not append name when a listed field already sorts by the path name maps to', () => {
    // Revisions sort `name` by their number: `revision_number desc` must not get `revisionNumber asc` after it.
    const revisions = { name: 'revisionNumber', revision_number: 'revisionNumber', create_time: 'createTime' };
    expect(parseOrderBy('create_time desc, revision_number desc', revisions, '')).toEqual([
      { field: 'create_time', path: 'createTime', direction: -1 },
      { field: 'revision_number', path: 'revisionNumber', direction: -1 },
    ]);
  });

  it('accepts camelCase names', () => {
    expect(parseOrderBy('createTime desc,displayName', sortable, '').map((k) => k.field)).toEqual([
      'create_time',
      'display_name',
      'name',
    ]);
  });

  it('rejects bad input, naming the problem', () => {
    expect(invalidMessage(() => parseOrderBy('foo', sortable, ''))).toBe(
      "order_by: unknown field 'foo'; sortable fields are: name, create_time, display_name, update_time",
    );
    expect(invalidMessage(() => parseOrderBy('create_time sideways', sortable, ''))).toBe(
      "order_by: expected 'asc' or 'desc' after 'create_time', got 'sideways'",
    );
    expect(invalidMessage(() => parseOrderBy('create_time desc x', sortable, ''))).toBe(
      "order_by: unexpected 'x' after 'create_time desc'",
    );
    expect(invalidMessage(() => parseOrderBy('create_time,,name', sortable, ''))).toBe(
      "order_by: empty item in 'create_time,,name'",
    );
    expect(invalidMessage(() => parseOrderBy('create_time, createTime desc', sortable, ''))).toBe(
      "order_by: field 'create_time' is listed more than once",
    );
  });
});

describe('toMongoSort', () => {
  it('keeps key order', () => {
    const sort = toMongoSort(parseOrderBy('display_name desc, create_time', sortable, ''));
    expect(sort).toEqual({ displayName: -1, createTime: 1, name: 1 });
    expect(Object.keys(sort)).toEqual(['displayName', 'createTime', 'name']);
  });
});
