/** AIP-132 `order_by`: `field [asc|desc], ...` over a resource's declared sortable fields. */
import { DomainError } from '@svc/domain/shared/domain-error';

export interface SortKey {
  /** snake_case field name as the API spells it. */
  field: string;
  /** Document path (lowerCamelCase, dotted). */
  path: string;
  direction: 1 | -1;
}

const invalid = (message: string) => new DomainError('INVALID_ARGUMENT', `order_by: ${message}`);
const toSnake = (s: string) => s.replace(/(?<=[a-z0-9])([A-Z])/g, '_$1').toLowerCase();

/**
 * Parses `text` (or `defaultOrder` when blank) against `sortable` (snake_case name → document path;
 * camelCase names are accepted as aliases). `name` is sortable (unless `nameSortable` is false, for
 * resources whose spec lists their sortable fields) and is always appended ascending as the final
 * tiebreaker unless listed, so the order is total and keyset pagination is stable.
 */
export function parseOrderBy(
  text: string | undefined,
  sortable: Record<string, string>,
  defaultOrder: string,
  options: { nameSortable?: boolean } = {},
): SortKey[] {
  const source = text !== undefined && text.trim() !== '' ? text : defaultOrder;
  const fields: Record<string, string> = options.nameSortable === false ? { ...sortable } : { name: 'name', ...sortable };
  const keys: SortKey[] = [];
  if (source.trim() !== '') {
    for (const item of source.split(',')) {
      const words = item.trim().split(/\s+/).filter((w) => w !== '');
      if (words.length === 0) throw invalid(`empty item in '${source}'`);
      const [written, dir, extra] = words;
      if (extra !== undefined) throw invalid(`unexpected '${extra}' after '${written} ${dir}'`);
      let direction: 1 | -1 = 1;
      if (dir !== undefined) {
        const lower = dir.toLowerCase();
        if (lower !== 'asc' && lower !== 'desc') throw invalid(`expected 'asc' or 'desc' after '${written}', got '${dir}'`);
        direction = lower === 'desc' ? -1 : 1;
      }
      const field = Object.hasOwn(fields, written) ? written : toSnake(written);
      if (!Object.hasOwn(fields, field)) {
        throw invalid(`unknown field '${written}'; sortable fields are: ${Object.keys(fields).join(', ')}`);
      }
      if (keys.some((k) => k.field === field)) throw invalid(`field '${field}' is listed more than once`);
      keys.push({ field, path: fields[field], direction });
    }
  }
  // A field sorting by the same path as `name` (revisions sort names by number) already breaks ties.
  const namePath = fields.name ?? 'name';
  if (!keys.some((k) => k.field === 'name' || k.path === namePath)) keys.push({ field: 'name', path: namePath, direction: 1 });
  return keys;
}

/** The MongoDB sort document for `keys`, in order. */
export function toMongoSort(keys: readonly SortKey[]): Record<string, 1 | -1> {
  const sort: Record<string, 1 | -1> = {};
  for (const k of keys) sort[k.path] = k.direction;
  return sort;
}
