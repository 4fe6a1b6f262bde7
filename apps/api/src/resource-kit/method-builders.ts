/**
 * General pieces every area builds its methods from, whatever its aggregate: a method of a service
 * (the permission its writes need, deprecation headers), Get by name from a read model, List over a
 * read model. The resource kit's builders (resource-methods.ts) and the custom areas use these.
 */
import type { QueryBus } from '@nestjs/cqrs';
import type { ListRequest } from '@svc/contracts/shared/requests';
import type { ResourceApi } from '@svc/contracts/shared/resource-api';
import type { ResponseDeclaration } from '@svc/contracts/shared/responses';
import type { Doc, Filter } from '@svc/infrastructure/read-store/read-store.port';
import { GetDocumentQuery, ListDocumentsQuery, type ListSpec, type Page } from '../cqrs/queries';
import { deprecationHeaders, type MethodCall, type MethodDefinition } from '../http/method-registry';

/** What every method of one service shares. */
export type ServiceSettings = Pick<ResourceApi, 'service' | 'permission' | 'preserveKeysUnder' | 'deprecated' | 'responseCase' | 'fromRest'>;

/** A method's request DTO, and the declaration of what it answers (the handler must return that). */
export interface MethodIo<Req extends object, Res> {
  request: new () => Req;
  response: ResponseDeclaration<Res & object> | undefined;
}

/**
 * One method of a service: a write needs the service's permission, a read only membership. Given
 * `{ request, response }`, the handler's result is checked against the response declaration (the
 * declaration is not inferred from the handler, so a handler cannot widen it).
 */
export function defineMethod<Req extends object, Res = unknown>(
  service: ServiceSettings,
  method: string,
  io: (new () => Req) | MethodIo<Req, Res>,
  access: 'read' | 'write',
  handle: (call: MethodCall<Req>) => Promise<NoInfer<Res>>,
): MethodDefinition<object> {
  const { request, response } = typeof io === 'function' ? { request: io, response: undefined } : io;
  return {
    service: service.service,
    method,
    permission: access === 'write' ? service.permission : undefined,
    request,
    response,
    preserveKeysUnder: service.preserveKeysUnder,
    responseCase: service.responseCase,
    fromRest: service.fromRest && ((request: Record<string, unknown>) => service.fromRest!(method, request)),
    headers: service.deprecated && deprecationHeaders(service.deprecated.since, { service: service.deprecated.successor, method }),
    handle,
  } as MethodDefinition<object>;
}

const unchanged = (doc: Doc): Doc => doc;

/** Get by name from a read model, answered under `key`; NOT_FOUND names the `noun`. */
export function getMethod<Req extends object>(
  queries: QueryBus,
  service: ServiceSettings,
  method: string,
  get: {
    request: new () => Req;
    store: string;
    noun: string;
    key: string;
    nameOf(request: Req): string;
    present?(doc: Doc): Doc;
    /** What it answers (resourceResponse of the resource), for the OpenAPI document. */
    response?: ResponseDeclaration;
  },
): MethodDefinition<object> {
  const present = get.present ?? unchanged;
  const definition = defineMethod(service, method, { request: get.request, response: get.response }, 'read', async ({ principal, request }) => ({
    [get.key]: present(await queries.execute(new GetDocumentQuery(get.store, principal.org, get.nameOf(request), get.noun))),
  }));
  return { ...definition, effect: { builder: 'getMethod', reads: [get.store] } };
}

/** List over a read model (filter, order_by, pages), answered under `key` with the next page token. */
export function listMethod<Req extends ListRequest>(
  queries: QueryBus,
  service: ServiceSettings,
  method: string,
  list: {
    request: new () => Req;
    spec: ListSpec;
    key: string;
    /** Conditions the method adds (the parent whose children it lists), checked before the query. */
    scope?(call: MethodCall<Req>): Promise<Filter>;
    /** The list form of one document. */
    shape?(doc: Doc): Doc;
    /** What it answers (pageResponse of the resource), for the OpenAPI document. */
    response?: ResponseDeclaration;
  },
): MethodDefinition<object> {
  const shape = list.shape ?? unchanged;
  const definition = defineMethod(service, method, { request: list.request, response: list.response }, 'read', async (call) => {
    const scope = list.scope ? await list.scope(call) : {};
    const page = await queries.execute<ListDocumentsQuery, Page>(new ListDocumentsQuery(list.spec, call.principal.org, call.request, scope));
    return { [list.key]: page.items.map(shape), nextPageToken: page.nextPageToken };
  });
  return { ...definition, query: list.spec, effect: { builder: 'listMethod', reads: [list.spec.constant ? '(a constant list)' : list.spec.collection] } };
}
