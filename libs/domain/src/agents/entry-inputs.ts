/**
 * The inputs an agent's entry task declares (`entryInputs`, our extension: the spec validates session
 * inputs "against the declared schema" without showing where it is declared; docs/decisions.md,
 * "Sessions"). CreateSession checks its `inputs` against this list.
 */
import { invalid } from '../shared/domain-error';
import { isPlainObject } from '../shared/json-path';

export const ENTRY_INPUT_TYPES = ['STRING', 'INT64', 'DOUBLE', 'BOOL'] as const;
export type EntryInputType = (typeof ENTRY_INPUT_TYPES)[number];

export interface EntryInput {
  name: string;
  type: EntryInputType;
  /** A list of values (an AnyList on the wire) instead of one. */
  repeated?: boolean;
  /** CreateSession must give it (when the session has inputs at all: NXL runtime). */
  required?: boolean;
}

export const MAX_ENTRY_INPUTS = 64;
const INPUT_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** The agent's declared entry inputs (none when it declares none); assumes checkEntryInputs passed. */
export function entryInputsOf(agent: Record<string, unknown> | null | undefined): EntryInput[] {
  return Array.isArray(agent?.entryInputs) ? (agent.entryInputs as EntryInput[]) : [];
}

export function checkEntryInputs(value: unknown): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) throw invalid('entry_inputs must be a list of {name, type, repeated, required}');
  if (value.length > MAX_ENTRY_INPUTS) throw invalid(`entry_inputs has ${value.length} entries; at most ${MAX_ENTRY_INPUTS} are allowed`);
  const seen = new Set<string>();
  value.forEach((input: unknown, i) => {
    if (!isPlainObject(input)) throw invalid(`entry_inputs[${i}] must be an object`);
    const { name, type, repeated, required } = input;
    if (typeof name !== 'string' || !INPUT_NAME.test(name)) {
      throw invalid(`entry_inputs[${i}].name must start with a letter or underscore and contain only letters, digits and underscores (at most 64 characters)`);
    }
    if (seen.has(name)) throw invalid(`entry_inputs[${i}]: '${name}' is declared twice`);
    seen.add(name);
    if (!(ENTRY_INPUT_TYPES as readonly unknown[]).includes(type)) throw invalid(`entry_inputs[${i}].type must be one of ${ENTRY_INPUT_TYPES.join(', ')}`);
    if (repeated !== undefined && typeof repeated !== 'boolean') throw invalid(`entry_inputs[${i}].repeated must be a boolean`);
    if (required !== undefined && typeof required !== 'boolean') throw invalid(`entry_inputs[${i}].required must be a boolean`);
  });
}
