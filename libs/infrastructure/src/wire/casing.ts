/**
 * Key casing between the wire and documents. Requests may arrive snake_case or lowerCamelCase;
 * responses are lowerCamelCase except agent SLOs (snake_case). Conversions follow protobuf's JSON
 * names: `display_name` ↔ `displayName`, `field_2` → `field2`.
 */

export interface CasingOptions {
  /**
   * Dotted camelCase paths (e.g. `labels`, `deployment.labels`) under which the whole subtree is
   * kept verbatim: map keys and free-form JSON (Struct) are data, not field names. Paths are
   * matched after converting each key to camelCase, so snake_case input matches too; array
   * elements do not add a segment (`items.labels` covers `items[3].labels`).
   */
  preserveKeysUnder?: readonly string[];
}

/**
 * Renamed keys, remembered: a request's keys are nearly always the schema's few hundred field names,
 * so the regular expression runs once per name, not once per key of every request. Bounded: keys
 * are client input, and a flood of distinct ones only empties the memo.
 */
class Renames {
  private readonly memo = new Map<string, string>();
  constructor(private readonly rename: (key: string) => string) {}

  get(key: string): string {
    let renamed = this.memo.get(key);
    if (renamed === undefined) {
      renamed = this.rename(key);
      if (this.memo.size >= RENAMES_KEPT) this.memo.clear();
      this.memo.set(key, renamed);
    }
    return renamed;
  }
}
const RENAMES_KEPT = 4096;

/** `display_name` → `displayName`. Leading underscores (`_id`) and camelCase input are unchanged. */
export function snakeToCamel(s: string): string {
  return s.includes('_') ? toCamel.get(s) : s;
}

/** `displayName` → `display_name`. A leading capital gets no leading underscore. */
export function camelToSnake(s: string): string {
  return toSnake.get(s);
}

const toCamel = new Renames((s) => s.replace(/(?<=[A-Za-z0-9])_+([A-Za-z0-9])/g, (_m, c: string) => c.toUpperCase()));
const toSnake = new Renames((s) => s.replace(/(?<=[A-Za-z0-9])([A-Z])/g, '_$1').toLowerCase());

export function toCamelDeep(value: unknown, opts?: CasingOptions): unknown {
  return convert(value, snakeToCamel, preserveSet(opts), '');
}

export function toSnakeDeep(value: unknown, opts?: CasingOptions): unknown {
  return convert(value, camelToSnake, preserveSet(opts), '');
}

const NOTHING_PRESERVED: ReadonlySet<string> = new Set();
/** Per options object (a method's definition, made once): its paths, in camelCase. */
const preserveSets = new WeakMap<readonly string[], ReadonlySet<string>>();
function preserveSet(opts?: CasingOptions): ReadonlySet<string> {
  const paths = opts?.preserveKeysUnder;
  if (!paths?.length) return NOTHING_PRESERVED;
  let set = preserveSets.get(paths);
  if (!set) preserveSets.set(paths, (set = new Set(paths.map((p) => p.split('.').map(snakeToCamel).join('.')))));
  return set;
}

/** Only JSON-like objects are walked; Dates, Buffers and class instances pass through untouched. */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function convert(value: unknown, rename: (key: string) => string, preserve: ReadonlySet<string>, path: string): unknown {
  if (Array.isArray(value)) return value.map((v) => convert(v, rename, preserve, path));
  if (!isPlainObject(value)) return value;
  // The preserved subtree is returned as is (same reference), not copied.
  if (path !== '' && preserve.has(path)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    // `@type` and friends are protobuf JSON annotations, never renamed.
    const renamed = key.startsWith('@') ? key : rename(key);
    // Paths matter only when something is preserved.
    const childPath = preserve.size === 0 ? '' : path === '' ? snakeToCamel(key) : `${path}.${snakeToCamel(key)}`;
    const converted = convert(value[key], rename, preserve, childPath);
    // defineProperty, so a `__proto__` key from JSON.parse stays data instead of setting the prototype.
    if (renamed === '__proto__') Object.defineProperty(out, renamed, { value: converted, enumerable: true, writable: true, configurable: true });
    else out[renamed] = converted;
  }
  return out;
}
