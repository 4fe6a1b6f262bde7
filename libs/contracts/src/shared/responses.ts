/**
 * What a method answers, declared beside its request with the same class-validator metadata (the
 * OpenAPI document reads both; nothing validates an answer). A field holding a resource names the
 * resource's declaration (`@IsResource`), so a resource's answered form is derived from its input
 * DTO and server-set fields in one place, whatever method answers it.
 */
import { IsObject, IsString, ValidateBy, type ValidationOptions } from 'class-validator';
import type { ChangelogApi, ResourceApi } from './resource-api';

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

type Answer = new () => Record<string, unknown>;
const ones = new Map<object, Map<string, Answer>>();
const pages = new Map<object, Map<string, Answer>>();

/** `{ <key>: resource }`: one class per resource and key, made once. */
export function resourceResponse(shape: ResourceShape, key: string = shape.singular): Answer {
  return memo(ones, shape, key, `${pascal(key)}Response`, (cls) => IsResource(() => shape)(cls.prototype, key));
}

/** `{ <plural>: resource[], nextPageToken }`: a page of a List (AIP-132). */
export function pageResponse(shape: ResourceShape, key: string = shape.plural): Answer {
  return memo(pages, shape, key, `${pascal(key)}Page`, (cls) => {
    IsResource(() => shape, { each: true })(cls.prototype, key);
    IsString()(cls.prototype, 'nextPageToken');
  });
}

/**
 * A changelog's entries (deployment status events, revisions, activities): projected from the
 * parent's events, declared by no DTO, so each is an open object (`one`: a GetX's single entry).
 */
export function changelogResponse(api: Pick<ChangelogApi, 'singular' | 'plural'>, form: 'one' | 'page'): Answer {
  if (form === 'one') return memo(ones, api, api.singular, `${pascal(api.singular)}Response`, (cls) => IsObject()(cls.prototype, api.singular));
  return memo(pages, api, api.plural, `${pascal(api.plural)}Page`, (cls) => {
    IsObject({ each: true })(cls.prototype, api.plural);
    IsString()(cls.prototype, 'nextPageToken');
  });
}

function memo(cache: Map<object, Map<string, Answer>>, shape: object, key: string, name: string, decorate: (cls: Answer) => void): Answer {
  const byKey = cache.get(shape) ?? new Map<string, Answer>();
  cache.set(shape, byKey);
  let cls = byKey.get(key);
  if (!cls) {
    const made = class {} as Answer;
    Object.defineProperty(made, 'name', { value: name });
    decorate(made);
    byKey.set(key, made);
    cls = made;
  }
  return cls;
}

const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
