// class-transformer's @Type reads design-time metadata: whoever loads a DTO needs the Reflect polyfill first.
import 'reflect-metadata';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsNotEmpty, IsOptional, IsString, ValidateNested } from 'class-validator';

/** One `connections[]` item of agents and runbooks: a connection name and the tools enabled on it. */
export class ConnectionBindingInput {
  @IsString() @IsNotEmpty() name!: string;
  @IsOptional() @IsArray() @ArrayMaxSize(100) @IsString({ each: true }) enabledTools?: string[];
}

/** Most connections one agent or runbook may bind (ours; the spec gives no limit). */
export const MAX_CONNECTION_BINDINGS = 100;

/**
 * The `connections` property of a settable-field DTO: an optional array of bindings, each validated,
 * and each rebuilt from its two known fields so unknown keys inside an item are dropped (wire
 * convention 5) instead of reaching the event.
 */
export function ConnectionBindings(): PropertyDecorator {
  const decorators: PropertyDecorator[] = [
    IsOptional(),
    IsArray(),
    ArrayMaxSize(MAX_CONNECTION_BINDINGS),
    ValidateNested({ each: true }),
    Transform(({ obj, key }) => toBindings((obj as Record<string, unknown>)[key]), { toClassOnly: true }),
  ];
  return (target, key) => decorators.forEach((decorate) => decorate(target, key));
}

function toBindings(raw: unknown): unknown {
  if (!Array.isArray(raw)) return raw;
  return raw.map((item: unknown) => {
    // Not an object: left for ValidateNested to refuse.
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return item;
    const { name, enabledTools } = item as Record<string, unknown>;
    const binding = new ConnectionBindingInput();
    if (name !== undefined) binding.name = name as string;
    if (enabledTools !== undefined && enabledTools !== null) binding.enabledTools = enabledTools as string[];
    return binding;
  });
}
