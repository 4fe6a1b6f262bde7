/**
 * Immutable helpers over plain JSON objects, addressed by field-mask paths (`displayName`, `labels.env`).
 * The dotted form is also MongoDB's `$set` / `$unset` form, so update events apply the same way to the
 * aggregate state and to the read model.
 */
export type JsonObject = Record<string, unknown>;

export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value the client supplied: JSON null counts as absent (proto3 JSON: null means the default). */
export function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null;
}

const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'prototype', 'constructor']);

/** Non-empty segments and nothing that could reach an object's prototype (paths come from clients). */
export function isValidPath(path: string): boolean {
  return path.split('.').every((segment) => segment.length > 0 && !FORBIDDEN_SEGMENTS.has(segment));
}

/** Own properties only, so a path never reads inherited members. */
export function getPath(object: JsonObject, path: string): unknown {
  let current: unknown = object;
  for (const segment of path.split('.')) {
    if (!isPlainObject(current) || !Object.hasOwn(current, segment)) return undefined;
    current = current[segment];
  }
  return current;
}

/** Like `$set`: missing or non-object intermediate fields become objects. */
export function setPath<T extends JsonObject>(object: T, path: string, value: unknown): T {
  const [head, ...rest] = path.split('.');
  if (rest.length === 0) return { ...object, [head]: value };
  const child = Object.hasOwn(object, head) ? object[head] : undefined;
  return { ...object, [head]: setPath(isPlainObject(child) ? child : {}, rest.join('.'), value) };
}

/** Like `$unset`: a missing path is a no-op; an emptied map stays as `{}`. */
export function unsetPath<T extends JsonObject>(object: T, path: string): T {
  const [head, ...rest] = path.split('.');
  if (!Object.hasOwn(object, head)) return object;
  if (rest.length === 0) {
    const copy: T = { ...object };
    delete copy[head];
    return copy;
  }
  const child = object[head];
  if (!isPlainObject(child)) return object;
  return { ...object, [head]: unsetPath(child, rest.join('.')) };
}

/** Structural equality of JSON values (key order does not matter, array order does). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && deepEqual(a[key], b[key]))
    );
  }
  return false;
}

export function sortedUnique(values: readonly string[]): string[] {
  return [...new Set(values)].sort();
}
