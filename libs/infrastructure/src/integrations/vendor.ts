/**
 * What the pager, tracker, incident-manager and identity-provider ports share: one failure type whose
 * message names the connection and the vendor but never a credential, the mapping of a vendor's HTTP
 * status onto it, reading a connection's details section in either spelling, and a bounded JSON call
 * for the vendors without an official Node client (PagerDuty Events v2, incident.io).
 */
import { DomainError, failedPrecondition, type ErrorCode } from '@svc/domain/shared/domain-error';

export type VendorErrorCode = Extract<ErrorCode, 'INVALID_ARGUMENT' | 'NOT_FOUND' | 'ALREADY_EXISTS' | 'FAILED_PRECONDITION' | 'PERMISSION_DENIED' | 'UNAVAILABLE' | 'DEADLINE_EXCEEDED'>;

/** A vendor call that failed; `PERMISSION_DENIED` means the vendor refused the connection's credentials. */
export class VendorError extends Error {
  constructor(
    readonly code: VendorErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'VendorError';
  }
}

/** Longest part of a vendor's own error text carried into ours. */
const MAX_VENDOR_TEXT = 300;

/**
 * The failure a vendor's status means, for `subject` (e.g. "PagerDuty (connections/pd)"). `detail` is
 * the vendor's own explanation (validated fields, say): clipped, with every secret of the connection
 * taken out, since a vendor may echo what it was sent.
 */
export function vendorStatusError(subject: string, status: number, detail: string, secrets: readonly string[]): VendorError {
  const text = scrub(detail, secrets);
  const why = text === '' ? '' : `: ${text}`;
  if (status === 400 || status === 422) return new VendorError('INVALID_ARGUMENT', `${subject} refused the request${why}`);
  if (status === 401) return new VendorError('PERMISSION_DENIED', `${subject} refused the connection's credentials`);
  if (status === 403) return new VendorError('PERMISSION_DENIED', `${subject} does not allow this with the connection's credentials${why}`);
  if (status === 404) return new VendorError('NOT_FOUND', `${subject}: not found${why}`);
  if (status === 409) return new VendorError('ALREADY_EXISTS', `${subject}: already exists${why}`);
  if (status === 410) return new VendorError('FAILED_PRECONDITION', `${subject}: gone${why}`);
  if (status === 429) return new VendorError('UNAVAILABLE', `${subject} is rate limiting the connection; retry later${why}`);
  return new VendorError('UNAVAILABLE', `${subject} did not answer (status ${status})`);
}

/** `text` clipped, with the connection's secrets (4 characters or more) replaced. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text.replace(/\s+/g, ' ').trim();
  for (const secret of secrets) if (secret.length >= 4 && out.includes(secret)) out = out.split(secret).join('[redacted]');
  return out.length > MAX_VENDOR_TEXT ? `${out.slice(0, MAX_VENDOR_TEXT)}…` : out;
}

/**
 * A port failure as the API answers it. The vendor refusing the connection's credentials, or a resource
 * the connection names being gone, is the connection's problem, not the caller's: FAILED_PRECONDITION.
 */
export function vendorFailure(error: unknown, reason: string): unknown {
  if (!(error instanceof VendorError)) return error;
  if (error.code === 'PERMISSION_DENIED') return failedPrecondition(error.message, `${reason}_ACCESS_REFUSED`);
  return new DomainError(error.code, error.message);
}

/** The `details.<section>` of a connection, as configured (snake_case) or as the API shows it (lowerCamelCase). */
export class Details {
  constructor(
    readonly connection: string,
    private readonly values: Record<string, unknown>,
  ) {}

  static of(connection: { name: string; connectionDetails?: unknown }, section: string): Details {
    const details = connection.connectionDetails;
    const value = details && typeof details === 'object' ? (details as Record<string, unknown>)[section] : undefined;
    return new Details(connection.name, value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {});
  }

  /** The value under its snake_case or lowerCamelCase name. */
  get(field: string): unknown {
    return this.values[field] ?? this.values[field.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())];
  }

  optional(field: string): string | undefined {
    const value = this.get(field);
    return typeof value === 'string' && value !== '' ? value : undefined;
  }

  /** FAILED_PRECONDITION naming the field (never its value) when it is not set. */
  required(field: string, section: string): string {
    const value = this.optional(field);
    if (value === undefined) throw failedPrecondition(`${this.connection} has no details.${section}.${field}`, `${section.toUpperCase()}_NOT_CONFIGURED`);
    return value;
  }
}

/** An `http(s)://` base URL without a trailing slash, or FAILED_PRECONDITION. */
export function baseUrl(value: string, connection: string, field: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw failedPrecondition(`${connection}: details field '${field}' is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw failedPrecondition(`${connection}: details field '${field}' must be an http(s) URL`);
  return url.toString().replace(/\/+$/, '');
}

/** Largest vendor answer read (the answers these ports read are a few kilobytes). */
export const MAX_VENDOR_BODY = 256 * 1024;

export interface JsonAnswer {
  status: number;
  headers: Headers;
  /** The parsed body, or undefined when it was empty or not JSON. */
  body: unknown;
}

/**
 * One JSON request under a time budget, its answer read up to MAX_VENDOR_BODY. A network failure or
 * the budget running out is a VendorError naming `subject`, never the request (it holds credentials).
 */
export async function callJson(
  subject: string,
  url: string,
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: unknown; timeoutMs: number; signal?: AbortSignal },
): Promise<JsonAnswer> {
  const timeout = AbortSignal.timeout(init.timeoutMs);
  let res: Response;
  try {
    res = await fetch(url, {
      method: init.method,
      headers: { accept: 'application/json', ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: init.signal ? AbortSignal.any([timeout, init.signal]) : timeout,
      redirect: 'error',
    });
  } catch {
    if (timeout.aborted) throw new VendorError('DEADLINE_EXCEEDED', `${subject} did not answer within ${init.timeoutMs} ms`);
    throw new VendorError('UNAVAILABLE', `${subject} could not be reached`);
  }
  const text = await readText(res, subject);
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body };
}

async function readText(res: Response, subject: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  if (res.body === null) return '';
  try {
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > MAX_VENDOR_BODY) throw new VendorError('UNAVAILABLE', `${subject} answered more than ${MAX_VENDOR_BODY} bytes`);
      chunks.push(Buffer.from(chunk));
    }
  } catch (error) {
    if (error instanceof VendorError) throw error;
    throw new VendorError('UNAVAILABLE', `${subject} broke off its answer`);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A string field of a JSON object, or ''. */
export function text(value: unknown, field: string): string {
  const v = value && typeof value === 'object' ? (value as Record<string, unknown>)[field] : undefined;
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
}

/** A JSON object field of a JSON object, or {}. */
export function object(value: unknown, field: string): Record<string, unknown> {
  const v = value && typeof value === 'object' ? (value as Record<string, unknown>)[field] : undefined;
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
