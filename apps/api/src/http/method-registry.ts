import { Injectable } from '@nestjs/common';
import type { Permission } from '@svc/contracts/roles/permissions';
import type { ListQueryFields, ResponseCase } from '@svc/contracts/shared/resource-api';
import type { ResponseDeclaration } from '@svc/contracts/shared/responses';
import { SPEC_METHOD_BY_KEY } from '@svc/contracts/catalog';
import { DomainError } from '@svc/domain/shared/domain-error';
import { parseRequest } from '@svc/infrastructure/requests/parse-request';
import { toSnakeDeep } from '@svc/infrastructure/wire';
import type { Principal } from '../auth/principal';
import { unimplemented } from './errors';

// Request parsing is shared with the CLI (evaluations record), so it lives in libs.
export { parseRequest };

export interface MethodCall<Req> {
  principal: Principal;
  request: Req;
  /** Request headers, lower-case names (an event stream's `last-event-id`); empty when not over HTTP. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** One API method: how to validate its request and what to do with it. Routes map to these. */
export interface MethodDefinition<Req extends object = object, Res = unknown> {
  /** `svc.notes.v1.NotesService`. */
  service: string;
  /** `CreateNote`. */
  method: string;
  /** Write permission the caller needs; reads need only membership. */
  permission?: Permission;
  /** class-validator DTO of the request (camelCase); handlers ignore unknown fields. */
  request: new () => Req;
  /** camelCase paths whose object keys are user data and keep their spelling (labels). */
  preserveKeysUnder?: readonly string[];
  /** Key casing of the answer (snake_case for agent SLOs); lowerCamelCase when absent. */
  responseCase?: ResponseCase;
  /** Maps a REST call's merged request (path variables as fields) to the method's request. */
  fromRest?(request: Record<string, unknown>): Record<string, unknown>;
  /** Response headers every answer of the method carries, errors included (deprecation notices). */
  headers?: Readonly<Record<string, string>>;
  /**
   * What it answers (the OpenAPI document shows it), where the resource kit's role does not say;
   * defineMethod types the handler's result with the same class.
   */
  response?: ResponseDeclaration<Res & object>;
  /** A List's filterable and orderable fields (set by listMethod; the OpenAPI document shows them). */
  query?: ListQueryFields;
  /**
   * Machine credentials (the integrations server) may call it too, on its RPC path: the handler
   * gets `machinePrincipal`, with no organization, and must derive one or refuse (InvokeTrigger).
   */
  machine?: boolean;
  /**
   * What the handler appends or reads, where a builder knows it (the resource kit, Get and List over
   * a read model); docs/method-handlers.md shows it.
   */
  effect?: MethodEffect;
  handle(call: MethodCall<Req>): Promise<Res>;
}

export interface MethodEffect {
  /** Events appended (`NoteCreated`) or commands sent (`Act 'status' on Deployment`). */
  appends?: readonly string[];
  /** Read models read. */
  reads?: readonly string[];
  /** The builder that made the handler (`resource kit: createResource`). */
  builder?: string;
}

/** Where a method was registered: the source file (repository-relative) and the function that registered it. */
export interface RegistrationSite {
  file: string;
  symbol: string;
}

/**
 * RFC 9745 `Deprecation` (`@` and Unix seconds) and RFC 8288 `Link` to the successor method
 * (`successor-version`, RFC 5829), for a method of a superseded service version.
 */
export function deprecationHeaders(since: string, successor: { service: string; method: string }): Record<string, string> {
  const seconds = Date.parse(since) / 1000;
  if (!Number.isInteger(seconds)) throw new Error(`deprecation date '${since}' must be an RFC 3339 time in whole seconds`);
  return { Deprecation: `@${seconds}`, Link: `</${successor.service}/${successor.method}>; rel="successor-version"` };
}

/**
 * All methods by RPC path. The RPC controller and the REST aliases call `invoke`, so a method has
 * one implementation whatever route reaches it.
 */
@Injectable()
export class MethodRegistry {
  private readonly methods = new Map<string, MethodDefinition>();
  private readonly sites = new Map<string, RegistrationSite>();

  register(...definitions: MethodDefinition<object>[]): void {
    const site = registrationSite();
    for (const d of definitions) {
      const key = `${d.service}/${d.method}`;
      if (this.methods.has(key)) throw new Error(`method ${key} registered twice`);
      this.methods.set(key, d);
      this.sites.set(key, site);
    }
  }

  /** Where `service/Method` was registered (docs/method-handlers.md). */
  siteOf(key: string): RegistrationSite | undefined {
    return this.sites.get(key);
  }

  /** Headers the method's answers carry (none for an unknown method). */
  headersOf(service: string, method: string): Readonly<Record<string, string>> {
    return this.methods.get(`${service}/${method}`)?.headers ?? {};
  }

  /** Whether machine credentials may call the method (ApiAuthGuard asks before authenticating). */
  acceptsMachine(service: string, method: string): boolean {
    return this.methods.get(`${service}/${method}`)?.machine === true;
  }

  /** Every registered method's declaration (the OpenAPI document reads them). */
  definitions(): readonly MethodDefinition[] {
    return [...this.methods.values()];
  }

  registered(): string[] {
    return [...this.methods.keys()].sort();
  }

  /**
   * Calls a method. `via: 'rpc'` is the `POST /<service>/<method>` route, which does not reach methods
   * the spec gives only REST paths for (their services are our naming, not the spec's); a method the
   * spec shows no path for at all (customers v1) is served on its RPC path.
   */
  async invoke(
    service: string,
    method: string,
    principal: Principal,
    body: unknown,
    via: 'rpc' | 'rest' = 'rest',
    headers: MethodCall<object>['headers'] = {},
  ): Promise<unknown> {
    const spec = SPEC_METHOD_BY_KEY.get(`${service}/${method}`);
    if (via === 'rpc' && spec && !spec.rpc && spec.rest?.length) throw new DomainError('NOT_FOUND', `no method ${service}/${method}; use ${spec.rest?.join(' or ')}`);
    const definition = this.methods.get(`${service}/${method}`);
    if (!definition) {
      // A method of the spec not built yet is UNIMPLEMENTED; anything else is an unknown route.
      // Writes of a frozen feature (service catalog, indicators v2) are refused the same way everywhere.
      if (spec?.frozen) {
        throw new DomainError('FAILED_PRECONDITION', `${method} is not available: this feature is read-only`, 'FEATURE_READ_ONLY');
      }
      if (!spec) {
        throw new DomainError('NOT_FOUND', `no method ${service}/${method}`);
      }
      throw unimplemented(`${service}/${method} is not implemented yet`);
    }
    if (definition.permission && !principal.permissions.includes(definition.permission)) {
      throw new DomainError('PERMISSION_DENIED', `${method} requires the ${definition.permission} permission`);
    }
    const raw = via === 'rest' && definition.fromRest && isObject(body) ? definition.fromRest(body) : body;
    const request = await parseRequest(definition, raw);
    const answer = await definition.handle({ principal, request, headers });
    // Handlers build lowerCamelCase answers (the read models' shape); a method declared snake_case
    // (agent SLOs, spec part 1 wire convention 2) is converted here, once, with the requests' JSON
    // names. Event streams and empty answers pass through.
    return definition.responseCase === 'snake' ? toSnakeDeep(answer, { preserveKeysUnder: definition.preserveKeysUnder }) : answer;
  }
}

/** Frames that pass registrations on (the registry, the resource kit): the site is the first frame past them. */
const RELAYS = /^apps\/api\/src\/(http\/method-registry|resource-kit\/resource-kit)\.ts$/;

/**
 * The first caller outside the registry and the kit, read from the stack once per `register` (a
 * few dozen at startup). Built files (dist/.../x.js) are named by their source (x.ts).
 */
function registrationSite(): RegistrationSite {
  const holder: { stack?: string } = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 30;
  Error.captureStackTrace(holder, registrationSite);
  Error.stackTraceLimit = limit;
  for (const line of (holder.stack ?? '').split('\n').slice(1)) {
    const frame = /^\s*at (?:async )?(?:(.+?) \()?(.+?):\d+:\d+\)?$/.exec(line);
    const source = frame && /((?:apps|libs)\/[^/]+\/src\/.+)\.[jt]s$/.exec(frame[2]);
    if (!frame || !source || RELAYS.test(`${source[1]}.ts`)) continue;
    return { file: `${source[1]}.ts`, symbol: frame[1] ?? '(anonymous)' };
  }
  return { file: 'unknown', symbol: 'unknown' };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
