/**
 * The OpenAPI 3.1 document of the API, generated from what declares it: the spec's method catalog
 * (routes, frozen and lifecycle flags), the method registry (permission, request DTO), the resource
 * declarations of AREAS (response keys, filters, order_by fields, input DTO) and the DTOs'
 * class-validator metadata. Nothing here names a method: one pass over the catalog, linear in it.
 */
import type { SpecMethod } from '@svc/contracts/catalog';
import { specMethodKey } from '@svc/contracts/catalog';
import type { FilterSchema, ListQueryFields, ResourceApi, ResponseCase } from '@svc/contracts/shared/resource-api';
import { EmptyResponse, EVENT_STREAM, pageResponse, resourceResponse, type ResponseDeclaration } from '@svc/contracts/shared/responses';
import { camelToSnake } from '../wire';
import { type DtoClass, type JsonSchema, SchemaRegistry } from './dto-schema';

/** What the registry knows of a served method. */
export interface DocumentedMethod {
  service: string;
  method: string;
  permission?: string;
  request?: DtoClass;
  /** A List's filter and order_by fields. */
  query?: ListQueryFields;
  /** Keys of the answer: lowerCamelCase unless `snake` (agent SLOs). */
  responseCase?: ResponseCase;
  /** What it answers, where the resource kit's role does not say (libs/contracts/src/shared/responses.ts). */
  response?: ResponseDeclaration;
}

/** Which credentials a route takes (from the route's guard metadata). */
export type RouteAuth = 'api' | 'workload' | 'machine' | 'public';

/** What the controllers say of a method: served by a route of its own (not the registry), and its credentials. */
export interface RouteFacts {
  auth: RouteAuth;
  dedicated: boolean;
  /** What the dedicated route answers (its `@Answers` declaration). */
  response?: ResponseDeclaration;
}

export interface OpenApiSources {
  methods: readonly SpecMethod[];
  /** Our methods the spec does not list (docs/api-coverage.md, Extensions), documented the same way. */
  extensions?: readonly SpecMethod[];
  /** Served methods by `service/Method`; a catalog method missing here answers UNIMPLEMENTED. */
  served: ReadonlyMap<string, DocumentedMethod>;
  resources: readonly ResourceApi[];
  /** A method's dedicated route and credentials; `api` (key pair, JWT, session token) through the registry unless told. */
  routeOf?: (m: SpecMethod) => RouteFacts;
  version: string;
  /** The package's license (package.json `license`). */
  license: string;
}

const identity = (s: string) => s;
const ERROR_RESPONSE = { $ref: '#/components/responses/Error' };
const SECURITY: Record<RouteAuth, Record<string, string[]>[]> = {
  api: [{ basic: [] }, { bearer: [] }, { svcSession: [] }],
  workload: [{ svcWorkload: [] }],
  machine: [{ machine: [] }],
  public: [],
};

export function openApiDocument(sources: OpenApiSources): JsonSchema {
  const registry = new SchemaRegistry();
  const roles = resourceRoles(sources.resources);
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const errorRef = registry.add('Error', ERROR_SCHEMA);

  const extension = new Set(sources.extensions ?? []);
  for (const m of [...sources.methods, ...extension]) {
    const key = specMethodKey(m);
    const served = sources.served.get(key);
    const role = roles.get(key);
    const { auth, dedicated, response: routeResponse } = sources.routeOf?.(m) ?? { auth: 'api', dedicated: false };
    const implemented = served !== undefined || dedicated;
    const query = served?.query ?? (role?.role === 'list' ? role.api : undefined);
    // Kit envelopes are classes made per resource (all named `Envelope`): named after their method.
    const named = served?.request?.name && served.request.name !== 'Envelope' ? served.request.name : `${m.method}Request`;
    const request = served?.request ? registry.ref(served.request, camelToSnake, named) : { type: 'object', additionalProperties: true };
    const casing = served?.responseCase === 'snake' ? camelToSnake : identity;
    const response = responseContent(registry, served?.response ?? routeResponse ?? kitResponse(role), casing);
    const common = {
      tags: [m.service],
      summary: `${m.service}/${m.method}`,
      description: describe(m, served, query, auth, implemented, extension.has(m)),
      ...(m.lifecycle ? { deprecated: true } : {}),
      security: SECURITY[auth],
      responses: {
        '200': { description: 'OK', content: response },
        '4XX': ERROR_RESPONSE,
        '5XX': ERROR_RESPONSE,
      },
      'x-service': m.service,
      'x-method': m.method,
      'x-permission': served?.permission ?? null,
      'x-implemented': implemented,
      ...(extension.has(m) ? { 'x-extension': true } : {}),
      ...(m.frozen ? { 'x-frozen': true } : {}),
      ...(query ? listExtensions(query) : {}),
    };
    // A method the spec shows no path for (customers v1) is served on its RPC path (MethodRegistry.invoke).
    if (m.rpc || !m.rest?.length) {
      addOperation(paths, 'post', `/${m.service}/${m.method}`, {
        operationId: `${m.service}.${m.method}`,
        ...common,
        requestBody: { required: true, content: { 'application/json': { schema: request } } },
      });
    }
    (m.rest ?? []).forEach((rest, i) => {
      const space = rest.indexOf(' ');
      const verb = rest.slice(0, space).toLowerCase();
      const { path, parameters, bound } = restPath(rest.slice(space + 1));
      const withBody = verb !== 'get' && verb !== 'delete';
      const inQuery = served?.request && !withBody ? queryParameters(registry, served.request, bound) : [];
      addOperation(paths, verb, path, {
        operationId: `${m.service}.${m.method}.rest${i === 0 ? '' : i + 1}`,
        ...common,
        'x-path-template': rest.slice(space + 1),
        parameters: [...parameters, ...inQuery],
        ...(withBody ? { requestBody: { content: { 'application/json': { schema: request } } } } : {}),
      });
    });
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'svc API',
      version: sources.version,
      license: { name: sources.license },
      description:
        'Generated at start-up from the method catalog, the method registry, the resource declarations and the request DTOs. ' +
        'Requests are snake_case (lowerCamelCase accepted); responses are lowerCamelCase (agent SLOs snake_case). ' +
        'Every method is served on its RPC path `POST /<service>/<Method>` where the spec gives one, and on the REST paths the spec lists.',
    },
    // Relative: the server that serves this document (a client sets its own base URL).
    servers: [{ url: '/', description: 'The server serving this document' }],
    paths,
    components: {
      schemas: registry.schemas,
      responses: { Error: { description: 'An error (google.rpc.Status as JSON)', content: { 'application/json': { schema: errorRef } } } },
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}

function addOperation(paths: Record<string, Record<string, JsonSchema>>, verb: string, path: string, operation: JsonSchema): void {
  const item = (paths[path] ??= {});
  if (item[verb]) throw new Error(`OpenAPI: ${verb.toUpperCase()} ${path} is declared by two methods`);
  item[verb] = operation;
}

interface ResourceRole {
  api: ResourceApi;
  role: 'get' | 'create' | 'update' | 'delete' | 'list' | 'undelete';
}

/** `service/Method` to the resource and kit method it is, from the resource declarations. */
function resourceRoles(resources: readonly ResourceApi[]): Map<string, ResourceRole> {
  const roles = new Map<string, ResourceRole>();
  for (const api of resources) {
    for (const [role, method] of Object.entries(api.methods)) {
      if (method) roles.set(`${api.service}/${method}`, { api, role: role as ResourceRole['role'] });
    }
  }
  return roles;
}

/** What a resource kit method answers: the resource under its key, a page of them, or nothing. */
function kitResponse(role: ResourceRole | undefined): ResponseDeclaration | undefined {
  if (!role) return undefined;
  if (role.role === 'delete') return EmptyResponse;
  return role.role === 'list' ? pageResponse(role.api) : resourceResponse(role.api);
}

/** The 200 content: a JSON body (inline, its nested DTOs and resources as components) or an event stream. */
function responseContent(registry: SchemaRegistry, declared: ResponseDeclaration | undefined, casing: (k: string) => string): JsonSchema {
  if (declared === EVENT_STREAM) {
    const schema = { type: 'string', description: 'Server-sent events (WHATWG): `id:` and `data:` lines, each `data:` one JSON object.' };
    return { 'text/event-stream': { schema } };
  }
  // A catalog method nobody serves yet: the spec document says what it will answer.
  const schema = declared
    ? registry.inline(declared, casing)
    : { type: 'object', additionalProperties: true, description: 'Not served yet: see the spec document of this method.' };
  return { 'application/json': { schema } };
}

function listExtensions(api: ListQueryFields): JsonSchema {
  const orderable = [...new Set([...Object.keys(api.orderBy), ...(api.nameSortable === false ? [] : ['name'])])];
  return {
    'x-filterable': filterable(api.filters),
    'x-orderable': orderable,
    'x-default-order': api.defaultOrder,
  };
}

function filterable(filters: FilterSchema): JsonSchema[] {
  return Object.entries(filters).map(([field, f]) => ({ field, type: f.type, ...(f.values ? { values: [...f.values] } : {}) }));
}

function describe(
  m: SpecMethod,
  served: DocumentedMethod | undefined,
  query: ListQueryFields | undefined,
  auth: RouteAuth,
  implemented: boolean,
  extension: boolean,
): string {
  const lines = [
    extension
      ? `\`${m.service}/${m.method}\`: an extension, not in the spec (docs/api-coverage.md, "Extensions").`
      : `\`${m.service}/${m.method}\` (spec part ${m.part}, area ${m.area}).`,
  ];
  if (m.frozen) lines.push('Frozen: answers FAILED_PRECONDITION with reason FEATURE_READ_ONLY.');
  else if (!implemented) lines.push('Not implemented yet: answers UNIMPLEMENTED (501).');
  if (served?.permission) lines.push(`Requires the ${served.permission} permission.`);
  else if (auth === 'api') lines.push('Requires membership of the organization (no permission key).');
  if (auth === 'workload') lines.push('Takes only an `Authorization: Svc-Workload` proof.');
  if (auth === 'machine') lines.push('Takes only the machine credentials of the operator configuration.');
  if (m.lifecycle) lines.push(`Lifecycle: ${m.lifecycle}.`);
  if (!m.rpc && !m.rest?.length) lines.push('The spec shows no path for this method; it is served on its RPC path.');
  if (m.shapeNotShown) lines.push('The spec does not show this method\'s request or response shape.');
  if (query) {
    lines.push(`Filter (AIP-160) on: ${filterable(query.filters).map((f) => `${f.field} (${f.type})`).join(', ')}.`);
    lines.push(`order_by on: ${(listExtensions(query)['x-orderable'] as string[]).join(', ')}; default \`${query.defaultOrder}\`.`);
  }
  return lines.join('\n\n');
}

// `{var}` or `{var=pattern}`, as in the REST router (apps/api/src/http/rest-routes.ts).
const VARIABLE = /\{([a-zA-Z_][a-zA-Z0-9_.]*)(?:=([^}]+))?\}/g;

/**
 * An OpenAPI path from an AIP-127 template: a path parameter cannot hold `/`, so each `*` of a
 * variable's pattern becomes a parameter of its own, named after the collection before it
 * (`{name=services/*}` is `services/{services_id}`); the original template is in `x-path-template`.
 */
function restPath(template: string): { path: string; parameters: JsonSchema[]; bound: Set<string> } {
  const parameters: JsonSchema[] = [];
  const bound = new Set<string>();
  const path = template.replace(VARIABLE, (_, variable: string, pattern: string | undefined) => {
    bound.add(variable.split('.')[0]);
    const param = (name: string, description: string) => {
      parameters.push({ name, in: 'path', required: true, description, schema: { type: 'string' } });
      return `{${name}}`;
    };
    if (!pattern) return param(variable.replace(/\./g, '_'), `The request field \`${variable}\`.`);
    const segments = pattern.split('/');
    return segments
      .map((segment, i) => {
        if (segment !== '*' && segment !== '**') return segment;
        const collection = (segments[i - 1] ?? variable).replace(/[^A-Za-z0-9]/g, '_');
        const multi = segment === '**' ? ' (several segments)' : '';
        return param(`${collection}_id`, `A segment${multi} of the request field \`${variable}\` (\`${pattern}\`).`);
      })
      .join('/');
  });
  return { path, parameters, bound };
}

/** GET and DELETE take their request fields as query parameters (lowerCamelCase or snake_case). */
function queryParameters(registry: SchemaRegistry, request: DtoClass, bound: Set<string>): JsonSchema[] {
  return registry
    .properties(request, camelToSnake)
    .filter((p) => !bound.has(p.name) && p.schema.$ref === undefined)
    .map((p) => ({ name: p.name, in: 'query', required: p.required, schema: p.schema }));
}

const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'status', 'message'],
      properties: {
        code: { type: 'integer', description: 'HTTP status code' },
        status: { type: 'string', description: 'google.rpc.Code name, e.g. INVALID_ARGUMENT' },
        message: { type: 'string' },
        details: {
          type: 'array',
          items: {
            type: 'object',
            required: ['@type'],
            properties: {
              '@type': { type: 'string', examples: ['type.googleapis.com/google.rpc.ErrorInfo'] },
              reason: { type: 'string' },
              domain: { type: 'string' },
              metadata: { type: 'object', additionalProperties: { type: 'string' } },
            },
          },
        },
      },
    },
  },
};

const SECURITY_SCHEMES: JsonSchema = {
  basic: { type: 'http', scheme: 'basic', description: 'An API key pair of the operator configuration: `key-id:secret`.' },
  bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: "A JWT of a trusted identity provider (operator configuration's trusted issuers)." },
  svcSession: { type: 'http', scheme: 'Svc-Session', description: 'An agent session token minted by MintAgentSessionToken (ES256 JWT).' },
  svcWorkload: { type: 'http', scheme: 'Svc-Workload', description: 'A workload identity proof; accepted by MintAgentSessionToken only.' },
  machine: { type: 'http', scheme: 'basic', description: 'Machine credentials of the operator configuration; internal webhook endpoints only.' },
};
