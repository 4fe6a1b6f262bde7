/**
 * The Any payloads sessions accept: Activity messages (Write, initial_messages) and typed entry-task
 * inputs (CreateSession `inputs`). Pure checks; the type host arrives from configuration.
 */
import { ACTIVITY_TYPE, ANY_LIST_TYPE, type AnyMessage } from '@svc/contracts/sessions/session.events';
import type { EntryInput, EntryInputType } from '../agents/entry-inputs';
import { invalid } from '../shared/domain-error';
import { isPlainObject } from '../shared/json-path';

/** Most messages one Write (or initial_messages) carries (ours; the body limit bounds their size). */
export const MAX_MESSAGES_PER_WRITE = 1000;

/** Spec "Activity message": the variants of each role, each with the shape of its contents. */
const VARIANTS: Record<string, Record<string, (value: unknown) => string | null>> = {
  user: { text: textOf, toolResults: listOf(['toolCallId', 'content']) },
  assistant: { text: textOf, toolCalls: listOf(['id', 'name', 'arguments']) },
};
const VARIANT_KEYS = 'user.text.text, user.toolResults, assistant.text.text or assistant.toolCalls';

function textOf(value: unknown): string | null {
  return isPlainObject(value) && typeof value.text === 'string' && Object.keys(value).length === 1 ? null : 'text must be {"text": string}';
}

function listOf(fields: string[]) {
  return (value: unknown): string | null => {
    if (!Array.isArray(value)) return `must be a list of {${fields.join(', ')}}`;
    for (const [i, item] of value.entries()) {
      if (!isPlainObject(item)) return `[${i}] must be an object`;
      for (const field of fields) if (typeof item[field] !== 'string') return `[${i}].${field} must be a string`;
    }
    return null;
  };
}

/**
 * Each message must be `<type_host>/svc.nxagent.v1.Activity` with exactly one of the four variant
 * keys; anything else is INVALID_ARGUMENT naming its index (`messages[2]`).
 */
export function checkActivities(messages: unknown, typeHost: string, field = 'messages'): AnyMessage[] {
  if (!Array.isArray(messages)) throw invalid(`${field} must be a list of Activity messages`);
  if (messages.length > MAX_MESSAGES_PER_WRITE) throw invalid(`${field} has ${messages.length} messages; at most ${MAX_MESSAGES_PER_WRITE} are allowed per request`);
  const type = `${typeHost}/${ACTIVITY_TYPE}`;
  messages.forEach((message: unknown, i) => {
    const at = `${field}[${i}]`;
    if (!isPlainObject(message)) throw invalid(`${at} must be an Activity message (an Any object)`);
    if (message['@type'] !== type) throw invalid(`${at} must have @type '${type}', got '${String(message['@type'] ?? '')}'`);
    const roles = Object.keys(message).filter((k) => k !== '@type');
    const role = roles[0];
    const variants = roles.length === 1 && isPlainObject(message[role]) && Object.hasOwn(VARIANTS, role) ? Object.keys(message[role] as object) : [];
    if (variants.length !== 1 || !Object.hasOwn(VARIANTS[role], variants[0])) throw invalid(`${at} must set exactly one of ${VARIANT_KEYS}`);
    const problem = VARIANTS[role][variants[0]]((message[role] as Record<string, unknown>)[variants[0]]);
    if (problem) throw invalid(`${at}: ${role}.${variants[0]} ${problem}`);
  });
  return messages as AnyMessage[];
}

const WRAPPERS: Record<EntryInputType, { type: string; ok(value: unknown): boolean }> = {
  STRING: { type: 'google.protobuf.StringValue', ok: (v) => typeof v === 'string' },
  // protobuf JSON writes int64 as a string; a safe integer number is accepted too.
  INT64: { type: 'google.protobuf.Int64Value', ok: (v) => (typeof v === 'string' && /^-?\d{1,19}$/.test(v)) || Number.isSafeInteger(v) },
  DOUBLE: { type: 'google.protobuf.DoubleValue', ok: (v) => typeof v === 'number' || v === 'NaN' || v === 'Infinity' || v === '-Infinity' },
  BOOL: { type: 'google.protobuf.BoolValue', ok: (v) => typeof v === 'boolean' },
};

/**
 * Session inputs against the agent's declared entry inputs: every key declared, every required one
 * given, each value an Any of the declared wrapper type (or an AnyList of them when repeated).
 */
export function checkSessionInputs(inputs: unknown, declared: readonly EntryInput[], agent: string, typeHost: string): void {
  if (!isPlainObject(inputs)) throw invalid('inputs must be a map of input name to Any');
  const byName = new Map(declared.map((d) => [d.name, d]));
  for (const [name, value] of Object.entries(inputs)) {
    const input = byName.get(name);
    if (!input) throw invalid(`inputs.${name}: ${agent} declares no entry input '${name}' (declared: ${[...byName.keys()].join(', ') || 'none'})`);
    const wrapper = WRAPPERS[input.type];
    const element = `${typeHost}/${wrapper.type}`;
    const expected = input.repeated ? `${typeHost}/${ANY_LIST_TYPE}` : element;
    const mismatch = invalid(`inputs.${name} must be an Any of @type '${expected}'${input.repeated ? ` whose items are '${element}'` : ''} (${input.type}${input.repeated ? ', repeated' : ''})`);
    if (!isPlainObject(value) || value['@type'] !== expected) throw mismatch;
    const values = input.repeated ? value.items : [value];
    if (!Array.isArray(values)) throw mismatch;
    for (const item of values) if (!isPlainObject(item) || item['@type'] !== element || !wrapper.ok(item.value)) throw mismatch;
  }
  for (const input of declared) if (input.required && !Object.hasOwn(inputs, input.name)) throw invalid(`inputs.${input.name} is required by ${agent}`);
}
