/**
 * Reading a connection's details the way an operator or a user wrote them. The configuration keeps the
 * operator's spelling (`base_url`) and the API's wire shape is lowerCamelCase (`baseUrl`), so a field
 * is looked up under both. Errors name the connection and the field, never a value (it may be a secret).
 */
import { ToolConnection, ToolError } from './tool-adapter.port';

function camel(snake: string): string {
  return snake.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The field's value under its snake_case or lowerCamelCase name, or undefined. */
export function detail(connection: ToolConnection, field: string): unknown {
  const details = connection.details ?? {};
  return details[field] ?? details[camel(field)];
}

export function optionalString(connection: ToolConnection, field: string): string | undefined {
  const value = detail(connection, field);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new ToolError('FAILED_PRECONDITION', `${connection.name}: details field '${field}' must be a string`);
  return value;
}

export function requiredString(connection: ToolConnection, field: string): string {
  const value = optionalString(connection, field);
  if (value === undefined) throw new ToolError('FAILED_PRECONDITION', `${connection.name}: details field '${field}' is not set`);
  return value;
}

export function flag(connection: ToolConnection, field: string): boolean {
  const value = detail(connection, field);
  return value === true || value === 'true';
}

/** A positive number of seconds (a number or a numeric string), or undefined. */
export function optionalSeconds(connection: ToolConnection, field: string): number | undefined {
  const value = detail(connection, field);
  if (value === undefined || value === null || value === '') return undefined;
  const seconds = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
  if (!Number.isFinite(seconds) || seconds <= 0) throw new ToolError('FAILED_PRECONDITION', `${connection.name}: details field '${field}' must be a positive number of seconds`);
  return seconds;
}

/** The `headers` map of the details (string values only). */
export function configuredHeaders(connection: ToolConnection): Record<string, string> {
  const value = detail(connection, 'headers');
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new ToolError('FAILED_PRECONDITION', `${connection.name}: details field 'headers' must be a map of header names to values`);
  const headers: Record<string, string> = {};
  for (const [name, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v !== 'string' && typeof v !== 'number') throw new ToolError('FAILED_PRECONDITION', `${connection.name}: header '${name}' of the details must be a string`);
    headers[name.toLowerCase()] = String(v);
  }
  return headers;
}

/**
 * The credential headers of the details: `token` as a bearer token, `username`/`password` as Basic,
 * `api_key` in the header `api_key_header` (default `X-API-Key`). Names are lowercased.
 */
export function credentialHeaders(connection: ToolConnection): Record<string, string> {
  const headers: Record<string, string> = {};
  const token = optionalString(connection, 'token');
  const username = optionalString(connection, 'username');
  const password = optionalString(connection, 'password');
  const apiKey = optionalString(connection, 'api_key');
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  else if (username !== undefined) headers.authorization = `Basic ${Buffer.from(`${username}:${password ?? ''}`).toString('base64')}`;
  if (apiKey !== undefined) headers[(optionalString(connection, 'api_key_header') ?? 'x-api-key').toLowerCase()] = apiKey;
  return headers;
}

/** The call's time budget: the limit, lowered by the connection's own `timeout_seconds`. */
export function callTimeoutMs(connection: ToolConnection, limitMs: number): number {
  const seconds = optionalSeconds(connection, 'timeout_seconds');
  return seconds === undefined ? limitMs : Math.min(limitMs, Math.ceil(seconds * 1000));
}

/** One signal for the call: its own timeout, and the turn being given up. */
export function callSignal(timeoutMs: number, outer?: AbortSignal): { signal: AbortSignal; timedOut: () => boolean } {
  const timeout = AbortSignal.timeout(timeoutMs);
  return { signal: outer ? AbortSignal.any([timeout, outer]) : timeout, timedOut: () => timeout.aborted };
}

/**
 * The values a server could echo back that must not reach the model: the credentials and the
 * configured header values (whichever of them is a key cannot be told, so all of 8 characters or
 * more), and the encoded forms sent (`Basic ...`).
 */
export function secretValues(connection: ToolConnection): string[] {
  const values = new Set<string>();
  for (const field of ['token', 'password', 'api_key']) {
    const value = optionalString(connection, field);
    if (value !== undefined && value.length >= 4) values.add(value);
  }
  for (const value of [...Object.values(configuredHeaders(connection)), ...Object.values(credentialHeaders(connection))]) {
    if (value.length >= 8) values.add(value);
    const basic = /^Basic (.+)$/.exec(value);
    if (basic) values.add(basic[1]);
  }
  // Longest first, so a value containing another is replaced whole.
  return [...values].sort((a, b) => b.length - a.length);
}
