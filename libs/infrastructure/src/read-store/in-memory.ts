/**
 * The read store's find over a fixed array (the connection types every organization sees), with
 * MongoDB semantics from mingo, so constant lists take the same compiled filters, sorts and keyset
 * page filters as read models (and the same linear wildcard matching, filter-query.ts).
 */
import { filterQuery } from './filter-query';
import type { Doc, Filter, FindOptions } from './read-store.port';

export function findInMemory(docs: readonly Doc[], filter: Filter, options: Omit<FindOptions, 'projection'> = {}): Doc[] {
  let cursor = filterQuery(filter).find([...docs]);
  if (options.sort) cursor = cursor.sort(options.sort);
  if (options.limit !== undefined) cursor = cursor.limit(options.limit);
  return cursor.all() as Doc[];
}
