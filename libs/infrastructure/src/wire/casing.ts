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

/** `display_name` → `displayName`. Leading underscores (`_id`) and camelCase input are unchanged. */
export function snakeToCamel(s: string): string {
  return s.replace(/(?<=[A-Za-z0-9])_+([A-Za-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/** `displayName` → `display_name`. A leading capital gets no leading underscore. */
export function camelToSnake(s: string): string {
  return s.replace(/(?<=[A-Za-z0-9])([A-Z])/g, '_$1').toLowerCase();
}

export function toCamelDeep(value: unknown, opts?: CasingOptions): unknown {
  return convert(value, snakeToCamel, preserveSet(opts), '');
}

export function toSnakeDeep(value: unknown, opts?: CasingOptions): unknown {
  return convert(value, camelToSnake, preserveSet(opts), '');
}

const preserveSet = (opts?: CasingOptions) =>
  new Set((opts?.preserveKeysUnder ?? []).map((p) => p.split('.').map(snakeToCamel).join('.')));

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
  for (const [key, v] of Object.entries(value)) {
    // `@type` and friends are protobuf JSON annotations, never renamed.
    const renamed = key.startsWith('@') ? key : rename(key);
    const childPath = path === '' ? snakeToCamel(key) : `${path}.${snakeToCamel(key)}`;
    // defineProperty, so a `__proto__` key from JSON.parse stays data instead of setting the prototype.
    Object.defineProperty(out, renamed, {
      value: convert(v, rename, preserve, childPath),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
