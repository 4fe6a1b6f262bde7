/**
 * Building blocks of the operator configuration's schema (zod): strict mappings whose unknown keys
 * are errors, lists that may be left out, and issues worded to follow the path they are reported at
 * (`organizations[0].members must be a list`), so every problem of a file reads as one line.
 */
import { z } from 'zod';
import { DomainError } from '@svc/domain/shared/domain-error';
import { camelToSnake, snakeToCamel } from '../wire';

/** A problem found in the file, at `path` (`organizations[0].members[1].api_keys[0]`). */
export interface ConfigIssue {
  path: string;
  message: string;
  /** The message is a sentence of its own (`path: message`), not a predicate (`path message`). */
  sentence: boolean;
}

/**
 * Marks a custom issue as a sentence of its own (`organizations[1].id: organization 'x' appears
 * twice`) rather than a predicate that continues the path (`... must be a list`).
 */
const SENTENCE = { sentence: true } as const;

/** A problem found by a rule (a transform or a refinement), reported at `path` below the current value. */
export function addIssue(ctx: z.RefinementCtx, message: string, path: Array<string | number> = [], sentence = false): void {
  ctx.addIssue({ code: 'custom', message, path, ...(sentence ? { params: SENTENCE } : {}) });
}

/** Runs a domain rule on a configured entry: its DomainError becomes `report`'s message (anything else is a bug and throws). */
export function judgeEntry(report: (message: string) => void, rule: () => void): void {
  try {
    rule();
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    report(error.message);
  }
}

/** Each zod issue as one line: the path, then the predicate or `: sentence`; one line per unknown key. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): ConfigIssue[] {
  return issues.flatMap((issue) => {
    const path = showPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: showPath([...issue.path, key]), message: issue.message, sentence: false }));
    }
    const sentence = issue.code === 'custom' && (issue.params as typeof SENTENCE | undefined)?.sentence === true;
    return [{ path, message: issue.message, sentence }];
  });
}

/** `path predicate` or `path: sentence`; at the top, `the file predicate` or the sentence alone. */
export function showIssue(issue: ConfigIssue): string {
  if (issue.sentence) return issue.path ? `${issue.path}: ${issue.message}` : issue.message;
  return `${issue.path || 'the file'} ${issue.message}`;
}

function showPath(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}

const NON_EMPTY = 'must be a non-empty string';

/**
 * A non-empty string (matching `pattern` when given); a number is taken as its decimal text, as YAML
 * reads `id: 42` as a number.
 */
export function nonEmptyString(pattern?: RegExp) {
  let string = z.string().min(1, NON_EMPTY);
  if (pattern) string = string.regex(pattern, `must match ${pattern.source}`);
  const number = z.number().transform(String);
  return z.union([string, pattern ? number.pipe(z.string().regex(pattern, `must match ${pattern.source}`)) : number], { error: NON_EMPTY });
}

/** An optional string. */
export const text = () => z.string({ error: 'must be a string' });

/** A list that may be left out or null, read as empty by the caller (`?? []`): no default here, so a
 * key left out stays distinguishable from one given (see `mapping`). */
export function list<T extends z.ZodType>(item: T) {
  return z.array(item, { error: 'must be a list' }).nullish();
}

/**
 * A mapping with exactly these snake_case keys; each multi-word key may also be written in
 * lowerCamelCase (as requests may), but not both ways at once. An unknown key (a typo such as
 * `api_key:`) is an error naming the known ones, never silently dropped. The keys of `shape`
 * carry no defaults (see `list`): a key left out must read as undefined for the alias check, and a
 * multi-word key must be optional, as its alias alone could not satisfy it.
 */
export function mapping<S extends z.ZodRawShape>(shape: S, unknownKey = 'is not a known field'): z.ZodType<z.output<z.ZodObject<S>>> {
  const aliases: Record<string, z.ZodType> = {};
  for (const [key, schema] of Object.entries(shape)) {
    const camel = snakeToCamel(key);
    if (camel !== key) aliases[camel] = (schema as z.ZodType).optional().meta({ description: `the same as ${key}` });
  }
  const known = Object.keys(shape).join(', ');
  const object = z.strictObject(
    { ...shape, ...aliases },
    { error: (issue) => (issue.code === 'unrecognized_keys' ? `${unknownKey} (known: ${known})` : 'must be a mapping') },
  );
  return object.transform((value, ctx) => {
    const out: Record<string, unknown> = { ...value };
    for (const camel of Object.keys(aliases)) {
      const given = out[camel];
      delete out[camel];
      if (given === undefined) continue;
      const snake = camelToSnake(camel);
      if (out[snake] !== undefined) addIssue(ctx, `give ${snake} or ${camel}, not both`, [camel], true);
      else out[snake] = given;
    }
    return out as z.output<z.ZodObject<S>>;
  }) as unknown as z.ZodType<z.output<z.ZodObject<S>>>;
}
