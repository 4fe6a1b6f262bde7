/**
 * The key casing of a method's answer. Handlers build lowerCamelCase answers (the read models' shape);
 * a method declared snake_case (agent SLOs, spec part 1 wire convention 2) is converted here, once,
 * with the same protobuf JSON names the requests use. Event streams and empty answers pass through.
 */
import type { ResponseCase } from '@svc/contracts/shared/resource-api';
import { toSnakeDeep } from '@svc/infrastructure/wire';

export function presentCase(method: { responseCase?: ResponseCase; preserveKeysUnder?: readonly string[] }, answer: unknown): unknown {
  if (method.responseCase !== 'snake') return answer;
  return toSnakeDeep(answer, { preserveKeysUnder: method.preserveKeysUnder });
}
