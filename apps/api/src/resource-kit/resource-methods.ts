/**
 * The method builders of a kit resource: Get / Create / Update / Delete / Undelete / List from its
 * domain spec and wire description, an action beyond CRUD, and a changelog under a resource. Each
 * turns a validated request into a query, or into a resource command sent down the write path by the
 * kit's command table (ResourceCommands, below): a kit write is this one file, from the request to
 * the bus (docs/decisions.md, "The three flows, shortened").
 */
import { randomUUID } from 'node:crypto';
import type { CommandBus, QueryBus } from '@nestjs/cqrs';
import { v5 as uuidv5 } from 'uuid';
import { ListRequest, type MutatingRequest, NameRequest, OptionalNameRequest, ParentListRequest } from '@svc/contracts/shared/requests';
import type { ChangelogApi, ResourceApi } from '@svc/contracts/shared/resource-api';
import { changelogResponse, resourceResponse } from '@svc/contracts/shared/responses';
import type { Actor, Decider } from '@svc/domain/shared/decider';
import { invalid } from '@svc/domain/shared/domain-error';
import {
  namePattern,
  nameTemplate,
  type Resource,
  resourceName,
  resourceStreamId,
  storeOf,
  type ResourceCommand,
  type ResourceEvent,
  type ResourceSpec,
  type ResourceState,
} from '@svc/domain/shared/resource';
import { resourceDecider } from '@svc/domain/shared/resource.decider';
import type { Handled } from '@svc/infrastructure/commands/command-service';
import { camelToSnake } from '@svc/infrastructure/wire';
import { ClaimUniqueValues, type ClaimingCommand } from '@svc/application/commands/claim-unique-values';
import { DecideAndAppend } from '@svc/application/commands/decide-and-append';
import { actorOf } from '../auth/principal';
import type { MethodDefinition } from '../http/method-registry';
import { defineMethod, getMethod, listMethod } from './method-builders';
import { nounOf, pick, presenter } from './presentation';
import type { ResourceReferences } from './references';
import { envelope, nameChecker, type ResourceRequest, updateScope } from './request-envelopes';

const GENERATED_ID_NAMESPACE = 'a4f0a5c8-2f7e-4d7b-9a51-3c1e8e0b6d12';

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
    const { refs, facts } = await parts.references.judged(spec, principal.org, resource);
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
    const { refs, facts } = await parts.references.judged(spec, principal.org, resource);
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

/** The resource object of a Create or Update request: validated by the envelope; a plain copy for the domain. */
export function resourceOf(api: Pick<ResourceApi, 'singular'>, request: ResourceRequest): Record<string, unknown> {
  return { ...(request[api.singular] as object | undefined) };
}

/** A client-chosen ID, or one generated (deterministically from request_id, so a retry names the same resource). */
export function chooseId(spec: ResourceSpec, api: ResourceApi, request: ResourceRequest, actor: Actor): string {
  const given = request[api.idField];
  if (given !== undefined && given !== null && given !== '') {
    if (typeof given !== 'string') throw invalid(`${camelToSnake(api.idField)} must be a string`);
    return given;
  }
  if (spec.idRequired) throw invalid(`${camelToSnake(api.idField)} is required`);
  return request.requestId ? uuidv5(`${actor.org}|${spec.collection}|${request.requestId}`, GENERATED_ID_NAMESPACE) : randomUUID();
}

/*
 * The kit's command handling as a table (STYLE.md): per resource command, whether it starts its
 * stream and whether it claims unique values first. The stream is always the resource's own, the
 * decider the spec's, the projection to wait for the resource's; loading, retries, appending and the
 * wait are the bus's one write path (DecideAndAppend).
 */
interface Row {
  /** Appends with expected revision "no stream" without reading first: an existing one answers ALREADY_EXISTS. */
  startsStream: boolean;
  /** May set a unique field (ResourceSpec.unique): the values are claimed before the command is decided. */
  claimsUnique: boolean;
}

const COMMANDS: Record<ResourceCommand['type'], Row> = {
  Create: { startsStream: true, claimsUnique: true },
  Update: { startsStream: false, claimsUnique: true },
  Put: { startsStream: false, claimsUnique: false },
  Delete: { startsStream: false, claimsUnique: false },
  Undelete: { startsStream: false, claimsUnique: false },
  Act: { startsStream: false, claimsUnique: false },
  Sync: { startsStream: false, claimsUnique: false },
};

const claims = (command: ResourceCommand): command is ClaimingCommand => COMMANDS[command.type].claimsUnique;

export class ResourceCommands {
  /** Per spec, its decider and the projection its writes wait for (built once). */
  private readonly specs = new Map<ResourceSpec, { decider: Decider<ResourceState, ResourceCommand, ResourceEvent>; projection: string }>();

  constructor(private readonly bus: CommandBus) {}

  /**
   * Sends one resource command down the write path and answers with the resource once its read model
   * has it (areas with a command of their own, such as the evaluations' Put, call this too).
   */
  async send(spec: ResourceSpec, requestId: string | undefined, name: string, command: ResourceCommand): Promise<Resource> {
    const { decider, projection } = this.of(spec);
    const streamId = resourceStreamId(spec, command.actor.org, name);
    const context = { actor: command.actor, requestId };
    const decided =
      spec.unique?.length && claims(command) ? await this.bus.execute(new ClaimUniqueValues(spec, name, { decider, streamId, command, context })) : command;
    const row = COMMANDS[command.type];
    const handled: Handled<ResourceState> = await this.bus.execute(
      new DecideAndAppend({ decider, streamId, command: decided, context, create: row.startsStream }, projection),
    );
    // An implicit resource an update left unchanged still has no stream: its read-model document is the answer.
    const unchanged = command.type === 'Update' ? command.existing : null;
    return (handled.state.resource ?? unchanged) as Resource;
  }

  private of(spec: ResourceSpec) {
    let built = this.specs.get(spec);
    if (!built) this.specs.set(spec, (built = { decider: resourceDecider(spec), projection: spec.projection ?? storeOf(spec) }));
    return built;
  }
}
