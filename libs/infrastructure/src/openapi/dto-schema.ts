/**
 * JSON Schema (OpenAPI 3.1 dialect) of a class-validator DTO, read from the same decorator metadata
 * that validates requests, so a documented field cannot differ from a checked one. Nested DTOs
 * (`@ValidateNested() @Type(() => X)`) become named component schemas, built once per class and
 * casing, so the cost is linear in the declared properties.
 */
import 'reflect-metadata';
import { getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { IS_RESOURCE, type ResourceShape } from '@svc/contracts/shared/responses';

// class-transformer keeps `@Type` metadata in a storage its index does not export (types ship apart).
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as typeof import('class-transformer/types/storage');

export type JsonSchema = Record<string, unknown>;
export type DtoClass = new () => object;
export type Casing = (camel: string) => string;

/** The validators this project uses, as schema keywords; others are named in `x-validators`. */
const KEYWORDS: Record<string, (m: ValidationMetadata) => JsonSchema> = {
  isString: () => ({ type: 'string' }),
  isBoolean: () => ({ type: 'boolean' }),
  // Free-form (user data: inputs, labels, tool arguments): any properties, typed as such by clients.
  isObject: () => ({ type: 'object', additionalProperties: true }),
  isArray: () => ({ type: 'array', items: {} }),
  isInt: () => ({ type: 'integer' }),
  isNumber: () => ({ type: 'number' }),
  isNotEmpty: () => ({ minLength: 1 }),
  isIn: (m) => ({ enum: [...(m.constraints?.[0] as unknown[])] }),
  isEnum: (m) => ({ enum: Object.values(m.constraints?.[0] as object) }),
  maxLength: (m) => ({ maxLength: m.constraints?.[0] }),
  minLength: (m) => ({ minLength: m.constraints?.[0] }),
  matches: (m) => ({ pattern: (m.constraints?.[0] as RegExp).source }),
  arrayMaxSize: (m) => ({ maxItems: m.constraints?.[0] }),
  arrayMinSize: (m) => ({ minItems: m.constraints?.[0] }),
  // Int64 (libs/contracts/src/shared/requests.ts): protobuf JSON's int64, a number or a decimal string.
  isInt64: () => ({ type: ['integer', 'string'], pattern: '^-?\\d{1,15}$' }),
};

/** Named component schemas of DTO classes, shared by every operation of one document. */
export class SchemaRegistry {
  readonly schemas: Record<string, JsonSchema> = {};
  private readonly names = new Map<DtoClass, Map<Casing, string>>();

  /** A `$ref` to the schema of `type` in `casing`, built the first time it is asked for. */
  ref(type: DtoClass, casing: Casing, name: string = type.name || 'Anonymous'): JsonSchema {
    const byCasing = this.names.get(type) ?? new Map<Casing, string>();
    this.names.set(type, byCasing);
    let known = byCasing.get(casing);
    if (!known) {
      known = this.uniqueName(name);
      byCasing.set(casing, known);
      this.schemas[known] = {}; // placed before the walk, so a self-reference resolves
      this.schemas[known] = this.build(type, casing);
    }
    return { $ref: `#/components/schemas/${known}` };
  }

  /** The schema of `type` in `casing`, in place (an answer's envelope); nested classes are still refs. */
  inline(type: DtoClass, casing: Casing): JsonSchema {
    return this.build(type, casing);
  }

  /** The property schemas of `type` (for query parameters), in `casing`. */
  properties(type: DtoClass, casing: Casing): { name: string; schema: JsonSchema; required: boolean }[] {
    const schema = this.build(type, casing);
    const required = new Set((schema.required as string[] | undefined) ?? []);
    return Object.entries(schema.properties as Record<string, JsonSchema>).map(([name, s]) => ({ name, schema: s, required: required.has(name) }));
  }

  /**
   * A resource as answered: its settable fields (the input DTO) plus the server-set ones (name, the
   * times, `outputOnly`, the etag), keys in `casing`.
   */
  resource(shape: ResourceShape, casing: Casing): JsonSchema {
    const snake = casing('createTime') !== 'createTime';
    const input = this.ref(shape.input, casing, pascal(shape.singular) + (snake ? 'FieldsSnake' : 'Fields'));
    const time = { type: 'string', format: 'date-time' };
    const serverSet: Record<string, JsonSchema> = { name: { type: 'string' }, createTime: time, updateTime: time, deleteTime: time };
    for (const field of shape.outputOnly ?? []) serverSet[field] = {};
    if (shape.etag) serverSet.etag = { type: 'string' };
    return { allOf: [input, { type: 'object', properties: Object.fromEntries(Object.entries(serverSet).map(([k, v]) => [casing(k), v])) }] };
  }

  add(name: string, schema: JsonSchema): JsonSchema {
    const unique = this.uniqueName(name);
    this.schemas[unique] = schema;
    return { $ref: `#/components/schemas/${unique}` };
  }

  private uniqueName(base: string): string {
    const clean = base.replace(/[^A-Za-z0-9._-]/g, '_');
    let name = clean;
    for (let i = 2; name in this.schemas; i++) name = `${clean}${i}`;
    return name;
  }

  private build(type: DtoClass, casing: Casing): JsonSchema {
    const metadata = getMetadataStorage().getTargetValidationMetadatas(type, '', true, false);
    const byProperty = new Map<string, ValidationMetadata[]>();
    for (const m of metadata) byProperty.set(m.propertyName, [...(byProperty.get(m.propertyName) ?? []), m]);
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const [property, rules] of byProperty) {
      const wire = casing(property);
      properties[wire] = this.propertySchema(type, property, rules, casing);
      if (!rules.some((r) => r.type === 'conditionalValidation')) required.push(wire);
    }
    // Handlers ignore unknown fields (docs/decisions.md, "Wire and errors"), so the schema stays open.
    return { type: 'object', properties, ...(required.length ? { required } : {}) };
  }

  private propertySchema(type: DtoClass, property: string, rules: ValidationMetadata[], casing: Casing): JsonSchema {
    const own: JsonSchema = {};
    const items: JsonSchema = {};
    const unknown: string[] = [];
    for (const rule of rules) {
      if (rule.type === 'conditionalValidation') continue;
      if (rule.type === 'nestedValidation') {
        const nested = defaultMetadataStorage.findTypeMetadata(type, property)?.typeFunction() as DtoClass | undefined;
        if (nested) Object.assign(rule.each ? items : own, this.ref(nested, casing));
        continue;
      }
      if (rule.name === IS_RESOURCE) {
        Object.assign(rule.each ? items : own, this.resource((rule.constraints[0] as () => ResourceShape)(), casing));
        continue;
      }
      const keyword = rule.name ? KEYWORDS[rule.name] : undefined;
      if (!keyword) {
        if (rule.name) unknown.push(rule.name);
        continue;
      }
      Object.assign(rule.each ? items : own, keyword(rule));
    }
    if (Object.keys(items).length > 0) Object.assign(own, { type: 'array', items });
    // A `$ref` beside other keywords is allowed in 3.1; an object check beside it adds nothing.
    if ((own.$ref || own.allOf) && own.type === 'object') {
      delete own.type;
      delete own.additionalProperties;
    }
    if (unknown.length > 0) own['x-validators'] = unknown;
    return own;
  }
}

const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
