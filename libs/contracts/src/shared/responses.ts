/**
 * What a method answers, declared beside its request with the same class-validator metadata (the
 * OpenAPI document reads both; nothing validates an answer). A field holding a resource names the
 * resource's declaration (`@IsResource`), so a resource's answered form is derived from its input
 * DTO and server-set fields in one place, whatever method answers it.
 */
import { IsString, ValidateBy, type ValidationOptions } from 'class-validator';
import type { ResourceApi } from './resource-api';

/** What the answered form of a resource is built from (a ResourceApi is one). */
export type ResourceShape = Pick<ResourceApi, 'singular' | 'plural' | 'input' | 'outputOnly' | 'etag'>;

/** A response declaration: a DTO class of the answer, or an event stream. */
export type ResponseDeclaration<T = object> = (new () => T) | typeof EVENT_STREAM;

/** A method answering a `text/event-stream` (WHATWG server-sent events) instead of a JSON body. */
export const EVENT_STREAM = 'text/event-stream' as const;

/** The rule name the OpenAPI document recognises as a resource-valued field. */
export const IS_RESOURCE = 'isResource';

/** A field holding a resource as answered (`{ each: true }`: an array of them). */
export function IsResource(shape: () => ResourceShape, options?: ValidationOptions): PropertyDecorator {
  // Answers are not validated; the rule exists for its metadata.
  return ValidateBy({ name: IS_RESOURCE, constraints: [shape], validator: { validate: () => true } }, options);
}

/** An answer that carries nothing (Delete, AIP-135 without a soft delete). */
export class EmptyResponse {}

const ones = new Map<ResourceShape, Map<string, new () => Record<string, unknown>>>();
const pages = new Map<ResourceShape, Map<string, new () => Record<string, unknown>>>();

/** `{ <key>: resource }`, one class per resource and key (a component schema of its own). */
export function resourceResponse(shape: ResourceShape, key: string = shape.singular): new () => Record<string, unknown> {
  return memo(ones, shape, key, `${pascal(key)}Response`, (cls) => IsResource(() => shape)(cls.prototype, key));
}

/** `{ <plural>: resource[], nextPageToken }`: a page of a List (AIP-132). */
export function pageResponse(shape: ResourceShape, key: string = shape.plural): new () => Record<string, unknown> {
  return memo(pages, shape, key, `${pascal(key)}Page`, (cls) => {
    IsResource(() => shape, { each: true })(cls.prototype, key);
    IsString()(cls.prototype, 'nextPageToken');
  });
}

function memo(
  cache: Map<ResourceShape, Map<string, new () => Record<string, unknown>>>,
  shape: ResourceShape,
  key: string,
  name: string,
  decorate: (cls: new () => Record<string, unknown>) => void,
): new () => Record<string, unknown> {
  const byKey = cache.get(shape) ?? new Map<string, new () => Record<string, unknown>>();
  cache.set(shape, byKey);
  let cls = byKey.get(key);
  if (!cls) {
    const made = class {} as new () => Record<string, unknown>;
    Object.defineProperty(made, 'name', { value: name });
    decorate(made);
    byKey.set(key, made);
    cls = made;
  }
  return cls;
}

const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
