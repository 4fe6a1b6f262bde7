/**
 * Plain camelCase JSON to a request DTO with class-transformer, without its two traps for data it
 * walks: an object holding a `constructor` key makes it throw, and keys named like members of
 * Object.prototype (`toString`, `valueOf`, `hasOwnProperty`) are silently skipped. Such keys are
 * user data (labels, tool_args), so they are renamed out of the way before the transformation and
 * back after it. Both walks are linear; checkInput has already bounded the depth and size.
 */
// class-transformer reads design-time metadata: whoever loads this module needs the Reflect polyfill first.
import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';

const PROTOTYPE_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));
// NUL never reaches here in a key (checkInput refuses it), so an escaped key cannot collide.
const ESCAPE = '\u0000';

export function toRequestDto<Req extends object>(type: new () => Req, plain: Record<string, unknown>): Req {
  // Escaping copies the whole value: only a request that holds such a key pays for it.
  const escaped = hasPrototypeName(plain) ? (escapeKeys(plain) as Record<string, unknown>) : plain;
  const dto = plainToInstance(type, escaped, { exposeDefaultValues: true });
  settle(dto);
  return dto;
}

/** Whether a key anywhere in the JSON value is named like a member of Object.prototype. */
function hasPrototypeName(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasPrototypeName);
  if (typeof value !== 'object' || value === null) return false;
  for (const key of Object.keys(value)) {
    if (PROTOTYPE_NAMES.has(key) || hasPrototypeName((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

/** A copy of the JSON value with prototype-named keys prefixed. */
function escapeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(escapeKeys);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    Object.defineProperty(out, PROTOTYPE_NAMES.has(key) ? ESCAPE + key : key, {
      value: escapeKeys(item),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * Undoes the escaping in place in free-form data, and drops null fields of the DTOs themselves: JSON null means
 * "unset" for every request field (proto3 JSON), so a handler never sees a null where it expects a
 * string (`{"order_by": null}`). Nulls inside free-form objects are data and stay.
 */
function settle(value: unknown): void {
  if (Array.isArray(value)) return value.forEach(settle);
  if (typeof value !== 'object' || value === null) return;
  const object = value as Record<string, unknown>;
  const isDto = Object.getPrototypeOf(object) !== Object.prototype;
  for (const key of Object.keys(object)) {
    const item = object[key];
    if (item === null && isDto) {
      delete object[key];
      continue;
    }
    settle(item);
    if (!key.startsWith(ESCAPE)) continue;
    delete object[key];
    // On a DTO such a key is an unknown field, and dropped: an own `constructor` would hide the
    // DTO's class from class-validator, which would then validate nothing.
    if (!isDto) Object.defineProperty(object, key.slice(1), { value: item, enumerable: true, writable: true, configurable: true });
  }
}
