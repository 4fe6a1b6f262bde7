/**
 * The method builders of a kit resource: Get / Create / Update / Delete / Undelete / List from its
 * domain spec and wire description, an action beyond CRUD, and a changelog under a resource. Each
 * turns a validated request into a query, or into a resource command sent down the write path.
 */
import type { QueryBus } from '@nestjs/cqrs';
import { ListRequest, type MutatingRequest, NameRequest, OptionalNameRequest, ParentListRequest } from '@svc/contracts/shared/requests';
import type { ChangelogApi, ResourceApi } from '@svc/contracts/shared/resource-api';
import { changelogResponse, resourceResponse } from '@svc/contracts/shared/responses';
import { invalid } from '@svc/domain/shared/domain-error';
import { namePattern, nameTemplate, resourceName, storeOf, type ResourceCommand, type ResourceSpec } from '@svc/domain/shared/resource';
import { camelToSnake } from '@svc/infrastructure/wire';
import { actorOf } from '../auth/principal';
import type { MethodDefinition } from '../http/method-registry';
import { defineMethod, getMethod, listMethod } from './method-builders';
import { nounOf, pick, presenter } from './presentation';
import type { ResourceReferences } from './references';
import { chooseId, envelope, nameChecker, resourceOf, updateScope } from './request-envelopes';
import type { ResourceCommands } from './resource-commands';

/** What the builders work with: the query bus, the references, the write path. */
export interface KitParts {
  queries: QueryBus;
  references: ResourceReferences;
  commands: ResourceCommands;
}

/** An area command beyond CRUD on one resource (`UpdateDeploymentStatus`). */
export interface ActionDefinition<Req extends MutatingRequest> {
  method: string;
  action: string;
  request: new () => Req;
  /** Names the resource and the action's input. */
  toAction(request: Req): { name: string; input: Record<string, unknown> };
}

const checkerOf = (spec: ResourceSpec, api: ResourceApi) => nameChecker(spec, camelToSnake(api.idField));

export function getResource(parts: KitParts, spec: ResourceSpec, api: ResourceApi, method: string): MethodDefinition<object> {
  const checkName = checkerOf(spec, api);
  return getMethod(parts.queries, api, method, {
    request: api.singleton ? OptionalNameRequest : NameRequest,
    store: storeOf(spec),
    noun: nounOf(api),
    key: api.singular,
    nameOf: (request: OptionalNameRequest) => checkName(request.name || api.singleton),
    present: presenter(api),
  });
}

export function createResource(parts: KitParts, spec: ResourceSpec, api: ResourceApi, method: string): MethodDefinition<object> {
  const present = presenter(api);
  return defineMethod(api, method, envelope(spec, api, 'create'), 'write', async ({ principal, request }) => {
    const resource = resourceOf(api, request);
    const actor = actorOf(principal);
    // A new child needs a live parent; List and changelogs accept a deleted one.
    const parent = spec.parent ? await parts.references.existing(spec.parent, principal.org, request.parent, 'parent', true) : undefined;
    const id = chooseId(spec, api, request, actor);
    const name = resourceName(spec, id, parent);
    const refs = await parts.references.lookUp(spec, principal.org, resource);
    const facts = await parts.references.factsFor(spec, principal.org, refs);
    const command: ResourceCommand = { type: 'Create', actor, id, resource, refs, parent, ...(facts ? { facts } : {}) };
    return { [api.singular]: present(await parts.commands.send(spec, request.requestId, name, command)) };
  });
}

export function updateResource(parts: KitParts, spec: ResourceSpec, api: ResourceApi, method: string): MethodDefinition<object> {
  const checkName = checkerOf(spec, api);
  const present = presenter(api);
  return defineMethod(api, method, envelope(spec, api, 'update'), 'write', async ({ principal, request }) => {
    const resource = resourceOf(api, request);
    const name = checkName(resource.name);
    const scope = updateScope(spec, api, request.updateMask as string | string[] | undefined);
    const actor = actorOf(principal);
    const refs = await parts.references.lookUp(spec, principal.org, resource);
    const facts = await parts.references.factsFor(spec, principal.org, refs);
    const command: ResourceCommand = {
      type: 'Update',
      actor,
      name,
      resource,
      scope: scope === 'all-provided' && api.defaultMask ? { paths: [...api.defaultMask] } : scope,
      refs,
      ...(facts ? { facts } : {}),
      // An implicit resource may so far exist only in its read model (see ResourceSpec.implicit).
      ...(spec.implicit ? { existing: await parts.references.read(storeOf(spec), principal.org, name) } : {}),
    };
    return { [api.singular]: present(await parts.commands.send(spec, request.requestId, name, command)) };
  });
}

export function deleteResource(parts: KitParts, spec: ResourceSpec, api: ResourceApi, method: string): MethodDefinition<object> {
  const checkName = checkerOf(spec, api);
  return defineMethod(api, method, NameRequest, 'write', async ({ principal, request }) => {
    const name = checkName(request.name);
    await parts.commands.send(spec, request.requestId, name, { type: 'Delete', actor: actorOf(principal), name });
    return {};
  });
}

export function undeleteResource(parts: KitParts, spec: ResourceSpec, api: ResourceApi, method: string): MethodDefinition<object> {
  const checkName = checkerOf(spec, api);
  const present = presenter(api);
  return defineMethod(api, method, NameRequest, 'write', async ({ principal, request }) => {
    const name = checkName(request.name);
    return { [api.singular]: present(await parts.commands.send(spec, request.requestId, name, { type: 'Undelete', actor: actorOf(principal), name })) };
  });
}

export function listResources(parts: KitParts, spec: ResourceSpec, api: ResourceApi, method: string): MethodDefinition<object> {
  const present = presenter(api);
  // The list form may be a subset (listFields); its etag is still the whole resource's.
  const { listFields } = api;
  return listMethod<ListRequest>(parts.queries, api, method, {
    request: spec.parent ? ParentListRequest : ListRequest,
    spec: { collection: storeOf(spec), filters: api.filters, orderBy: api.orderBy, defaultOrder: api.defaultOrder, softDelete: true, nameSortable: api.nameSortable },
    key: api.plural,
    // A nested collection lists one parent's children; the parent must exist (it may be deleted).
    scope: async ({ principal, request }) =>
      spec.parent ? { _parent: await parts.references.existing(spec.parent, principal.org, (request as ParentListRequest).parent, 'parent') } : {},
    shape: listFields ? (doc) => pick(present(doc), [...listFields, 'etag']) : present,
  });
}

/** The answer is the resource after the action, under the resource's key. */
export function resourceAction<Req extends MutatingRequest>(
  parts: KitParts,
  spec: ResourceSpec,
  api: ResourceApi,
  definition: ActionDefinition<Req>,
): MethodDefinition<object> {
  const checkName = checkerOf(spec, api);
  const present = presenter(api);
  return defineMethod(api, definition.method, { request: definition.request, response: resourceResponse(api) }, 'write', async ({ principal, request }) => {
    const { name, input } = definition.toAction(request);
    const command: ResourceCommand = { type: 'Act', action: definition.action, actor: actorOf(principal), name: checkName(name), input };
    return { [api.singular]: present(await parts.commands.send(spec, request.requestId, name, command)) };
  });
}

/**
 * A changelog under a resource (ChangelogApi): List by `parent`, which must name a resource of the
 * caller's organization (a soft-deleted one still has its history), and Get by name.
 */
export function changelogMethods(parts: KitParts, parent: ResourceSpec, api: ChangelogApi): MethodDefinition<object>[] {
  const { store: collection, filters, orderBy, defaultOrder } = api;
  const definitions = [
    listMethod<ParentListRequest>(parts.queries, api, api.methods.list, {
      request: ParentListRequest,
      spec: { collection, filters, orderBy, defaultOrder, softDelete: false },
      key: api.plural,
      response: changelogResponse(api, 'page'),
      scope: async ({ principal, request }) => ({ [api.parentPath]: await parts.references.existing(parent, principal.org, request.parent, 'parent') }),
    }),
  ];
  if (api.methods.get) {
    const entryId = api.entryId?.pattern.source.replace(/^\^|\$$/g, '') ?? '[^/]+';
    const entryName = new RegExp(`${namePattern(parent).source.slice(0, -1)}/${api.segment}/${entryId}$`);
    const entryRule = api.entryId ? ` (${api.entryId.rule})` : '';
    definitions.push(
      getMethod(parts.queries, api, api.methods.get, {
        request: NameRequest,
        store: api.store,
        noun: nounOf(api),
        key: api.singular,
        response: changelogResponse(api, 'one'),
        nameOf: ({ name }) => {
          if (!entryName.test(name)) throw invalid(`name must look like '${nameTemplate(parent)}/${api.segment}/{id}'${entryRule}, got '${name}'`);
          return name;
        },
      }),
    );
  }
  return definitions;
}
