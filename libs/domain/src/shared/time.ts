/** RFC 3339 input to the stored form; for time fields of resources (filters use the query layer's own). */
import { invalid } from './domain-error';

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** An RFC 3339 timestamp in the stored form (`toISOString()`), so string order is time order. */
export function normaliseTime(value: unknown, field: string): string {
  const date = typeof value === 'string' && RFC3339.test(value) ? new Date(value) : null;
  if (!date || Number.isNaN(date.getTime())) throw invalid(`${field} must be an RFC 3339 timestamp such as '2024-01-31T12:00:00Z' (got '${String(value)}')`);
  return date.toISOString();
}
