/** AIP-134 `update_mask` parsing against a resource's settable and output-only fields. */
import { DomainError } from '@svc/domain/shared/domain-error';

export interface UpdateMaskSpec {
  /** camelCase paths a client may set; dotted entries name sub-fields of messages (`query.filter`). */
  settable: readonly string[];
  /** camelCase paths the server owns; listed in a mask they are dropped silently (AIP-203). */
  outputOnly: readonly string[];
  /** camelCase settable fields that are maps: `labels.<key>` addresses one key (kept verbatim). */
  maps?: readonly string[];
  /** camelCase settable message fields whose sub-fields may be named (`query.filter_text` → `query.filterText`). */
  objects?: readonly string[];
}

/**
 * `{ paths }` (camelCase, deduplicated, in mask order; may be empty when only output-only paths
 * were listed), `'all'` for `*`, or `'all-provided'` when the mask is absent or blank.
 */
export type UpdateMask = { paths: string[] } | 'all-provided' | 'all';

const invalid = (message: string) => new DomainError('INVALID_ARGUMENT', `update_mask: ${message}`);
const camel = (s: string) => s.replace(/(?<=[A-Za-z0-9])_+([A-Za-z0-9])/g, (_m, c: string) => c.toUpperCase());

export function parseUpdateMask(mask: string | readonly string[] | undefined | null, spec: UpdateMaskSpec): UpdateMask {
  // The request body is untrusted: `update_mask: 5` or `{ paths }` is a bad argument, not a crash.
  if (mask !== undefined && mask !== null && typeof mask !== 'string' && !(Array.isArray(mask) && mask.every((m) => typeof m === 'string'))) {
    throw invalid("must be a comma-separated string of field paths (or a list of them)");
  }
  const items = (typeof mask === 'string' ? [mask] : (mask ?? []))
    .flatMap((m) => m.split(','))
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (items.length === 0) return 'all-provided';
  if (items.includes('*')) {
    if (items.length > 1) throw invalid("'*' must be the only path");
    return 'all';
  }
  const underOutputOnly = (path: string) => spec.outputOnly.some((o) => path === o || path.startsWith(`${o}.`));
  const paths: string[] = [];
  const add = (p: string) => {
    if (!paths.includes(p)) paths.push(p);
  };
  for (const written of items) {
    const segments = written.split('.');
    if (segments.some((s) => s === '')) throw invalid(`unknown field '${written}'`);
    const path = segments.map(camel).join('.');
    if (spec.settable.includes(path)) {
      add(path);
      continue;
    }
    if (underOutputOnly(path)) continue;
    const head = camel(segments[0]);
    if (segments.length > 1 && spec.settable.includes(head)) {
      if (spec.maps?.includes(head)) {
        add([head, ...segments.slice(1)].join('.'));
        continue;
      }
      if (spec.objects?.includes(head)) {
        add(path);
        continue;
      }
    }
    // A message whose sub-fields are settable one by one (`query` for `query.filter`, `query.metric`).
    const children = spec.settable.filter((s) => s.startsWith(`${path}.`));
    if (children.length > 0) {
      children.forEach(add);
      continue;
    }
    throw invalid(`unknown field '${written}'`);
  }
  return { paths };
}
