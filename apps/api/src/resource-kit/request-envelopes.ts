/**
 * What a kit request carries around the resource itself: the Create / Update envelope DTO, the
 * resource name it targets, and the update_mask read as an UpdateScope (the ID of a new resource and
 * the resource object are resource-methods.ts's, where Create uses them).
 */
// class-transformer reads design-time metadata: whoever loads this module needs the Reflect polyfill first.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsNotEmpty, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { MutatingRequest } from '@svc/contracts/shared/requests';
import type { ResourceApi } from '@svc/contracts/shared/resource-api';
import { invalid } from '@svc/domain/shared/domain-error';
import { namePattern, nameTemplate, type ResourceSpec, type UpdateScope } from '@svc/domain/shared/resource';
import { parseUpdateMask, type UpdateMaskSpec } from '@svc/infrastructure/query';
import { camelToSnake } from '@svc/infrastructure/wire';

/** Server-set fields of every resource: a mask may name them, an update ignores them (AIP-203). */
const OUTPUT_ONLY = ['name', 'createTime', 'updateTime', 'deleteTime'];

/** Request of a method whose body holds the resource under a per-resource key (`note`). */
export type ResourceRequest = MutatingRequest & Record<string, unknown>;

/**
 * The Create or Update request DTO of one resource, declared from its wire description: the resource
 * object validated as a nested `api.input` and the ID field on create (update_mask is checked by
 * updateScope against the resource's fields). One validation pass covers envelope and resource.
 */
export function envelope(spec: ResourceSpec, api: ResourceApi, method: 'create' | 'update'): new () => ResourceRequest {
  class Envelope extends MutatingRequest {}
  const target = Envelope.prototype;
  const key = api.singular;
  if (method === 'create' && api.optionalOnCreate) IsOptional()(target, key);
  IsObject({ message: `${camelToSnake(key)} is required and must be an object` })(target, key);
  ValidateNested()(target, key);
  Type(() => api.input)(target, key);
  if (method === 'create') {
    IsOptional()(target, api.idField);
    IsString()(target, api.idField);
    if (spec.parent) {
      IsString()(target, 'parent');
      IsNotEmpty()(target, 'parent');
    }
  }
  return Envelope as new () => ResourceRequest;
}

/** A checker of names a request field holds: INVALID_ARGUMENT showing the template unless `rule` matches. */
export function nameRule(rule: RegExp, template: string, field = 'name'): (name: unknown) => string {
  return (name) => {
    if (typeof name !== 'string' || !rule.test(name)) throw invalid(`${field} must look like '${template}', got '${String(name ?? '')}'`);
    return name;
  };
}

/** Requests name resources of this collection only: `notes/{note_id}`, `services/{id}/dimensions/{...}`. */
export function nameChecker(spec: ResourceSpec, idLabel = 'id', field = 'name'): (name: unknown) => string {
  return nameRule(namePattern(spec), nameTemplate(spec, idLabel), field);
}

/** The fields an update_mask may name: settable ones, and server-set ones (ignored) beyond the common four. */
export interface MaskRules extends Pick<UpdateMaskSpec, 'settable' | 'maps'> {
  outputOnly?: readonly string[];
  /** Refuse a missing or blank mask, and `*` (full replacement). */
  maskRequired?: boolean;
}

/** What an update touches, from its update_mask: the one mask parse of every update the api serves. */
export function maskScope(mask: string | readonly string[] | undefined, rules: MaskRules): UpdateScope {
  const scope = parseUpdateMask(mask, { settable: rules.settable, outputOnly: [...OUTPUT_ONLY, ...(rules.outputOnly ?? [])], maps: rules.maps });
  if (rules.maskRequired && scope === 'all-provided') throw invalid('update_mask is required and must name at least one field');
  if (rules.maskRequired && scope === 'all') throw invalid("update_mask must name the fields to change; '*' (full replacement) is not supported");
  // Output-only paths are stripped (wire convention 5); a required mask must still name something settable.
  if (rules.maskRequired && typeof scope === 'object' && scope.paths.length === 0) throw invalid('update_mask names no settable field once output-only paths are stripped');
  return scope;
}

/** What an update of a kit resource touches, from its update_mask and the resource's wire rules. */
export function updateScope(spec: ResourceSpec, api: ResourceApi, mask: string | readonly string[] | undefined): UpdateScope {
  return maskScope(mask, {
    settable: spec.settable,
    outputOnly: api.outputOnly,
    maps: api.preserveKeysUnder?.map((p) => p.split('.').slice(1).join('.')).filter(Boolean),
    maskRequired: api.maskRequired,
  });
}
