import { validateSync, type ValidationError } from 'class-validator';
import { invalid } from '@svc/domain/shared/domain-error';
import { camelToSnake, toCamelDeep } from '../wire';
import { checkInput } from './input-limits';
import { toRequestDto } from './request-dto';
import { memoizeValidationMetadata } from './validation-metadata';

memoizeValidationMetadata();

/**
 * snake_case (or camelCase) JSON in, a validated camelCase DTO out; errors name every bad field.
 * The input limits are checked first, so nothing after them walks an unbounded structure. Unknown
 * fields are kept on the DTO, where handlers ignore them (docs/decisions.md, "Wire and errors").
 */
export async function parseRequest<Req extends object>(
  definition: { request: new () => Req; preserveKeysUnder?: readonly string[] },
  body: unknown,
): Promise<Req> {
  if (body === undefined || body === null) body = {};
  if (typeof body !== 'object' || Array.isArray(body)) throw invalid('request body must be a JSON object');
  checkInput(body);
  const camel = toCamelDeep(body, { preserveKeysUnder: definition.preserveKeysUnder }) as Record<string, unknown>;
  const dto = toRequestDto(definition.request, camel);
  // Synchronous: every constraint of the contracts is (parse-request.spec.ts checks it), and the
  // asynchronous validate() costs a promise per property and a microtask per request for nothing.
  const errors = validateSync(dto, { whitelist: false, forbidUnknownValues: false });
  if (errors.length > 0) throw invalid(validationMessages(errors).join('; '));
  return dto;
}

/**
 * One message per broken rule, naming the field by its snake_case path (`note.display_name must be
 * a string`): class-validator names the bare camelCase property, nested objects as children.
 */
function validationMessages(errors: ValidationError[], prefix = ''): string[] {
  return errors.flatMap((error) => {
    const path = prefix ? `${prefix}.${camelToSnake(error.property)}` : camelToSnake(error.property);
    // A message may already start with the field: camelCase (class-validator's) or snake_case (ours).
    const own = Object.values(error.constraints ?? {}).map((message) => {
      const field = [error.property, camelToSnake(error.property)].find((f) => message.startsWith(`${f} `));
      return field ? `${path}${message.slice(field.length)}` : `${path}: ${message}`;
    });
    return [...own, ...validationMessages(error.children ?? [], path)];
  });
}
