import { Inject, Injectable } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Type } from 'class-transformer';
import { IsNotEmpty, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { randomUUID } from 'node:crypto';
import { v5 as uuidv5 } from 'uuid';
import { ListRequest, MutatingRequest, NameRequest, OptionalNameRequest, ParentListRequest } from '@svc/contracts/shared/requests';
import type { ChangelogApi, ResourceApi } from '@svc/contracts/shared/resource-api';
import type { Actor, Decider } from '@svc/domain/shared/decider';
import { invalid, notFound } from '@svc/domain/shared/domain-error';
import {
  kindLabel,
  namePattern,
  nameTemplate,
  resourceName,
  resourceStreamId,
  storeOf,
  type References,
  type Resource,
  type ResourceCommand,
  type ResourceEvent,
  type ResourceSpec,
  type ResourceState,
  type UpdateScope,
} from '@svc/domain/shared/resource';
import { resourceDecider } from '@svc/domain/shared/resource.decider';
import { claimStreamId, holderFacts, uniqueClaimDecider, uniqueClaimOf } from '@svc/domain/shared/unique-claim';
import { CommandExecutor } from '@svc/infrastructure/commands/command-executor';
import { READ_STORE } from '@svc/infrastructure/nest/tokens';
import { docId } from '@svc/infrastructure/projection/projection';
import { parseUpdateMask } from '@svc/infrastructure/query';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { camelToSnake } from '@svc/infrastructure/wire';
import { withEtag } from '@svc/infrastructure/wire/etag';
import { actorOf, type Principal } from '../auth/principal';
import { ExecuteCommand } from '../cqrs/execute.command';
import { GetDocumentQuery, ListDocumentsQuery, toResponse } from '../cqrs/queries';
import { MethodRegistry, deprecationHeaders, type MethodDefinition } from '../http/method-registry';

const GENERATED_ID_NAMESPACE = 'a4f0a5c8-2f7e-4d7b-9a51-3c1e8e0b6d12';
const OUTPUT_ONLY = ['name', 'createTime', 'updateTime', 'deleteTime'];

/** Request of a method whose body holds the resource under a per-resource key (`note`). */
type ResourceRequest = MutatingRequest & Record<string, unknown>;

/**
 * The Create or Update request DTO of one resource, declared from its wire description: the resource
 * object validated as a nested `api.input` and the ID field on create (update_mask is checked by
 * parseUpdateMask against the resource's fields). One validation pass covers envelope and resource.
 */
function envelope(spec: ResourceSpec, api: ResourceApi, method: 'create' | 'update'): new () => ResourceRequest {
  class Envelope extends MutatingRequest {}
  const target = Envelope.prototype;
  const key = api.singular;
  if (method === 'create' && api.optionalOnCreate) IsOptional()(target, key);
  IsObject({ message: `${camelToSnake(key)} is required and must be an object` })(target, key);
  ValidateNested()(target, key);
  Type(() => api.input)(target, key);
  if (method === 'create') {
    IsOptional()(target, api.idField);
    IsString()(target, api.idField);
    if (spec.parent) {
      IsString()(target, 'parent');
      IsNotEmpty()(target, 'parent');
    }
  }
  return Envelope as new () => ResourceRequest;
}

/**
 * The API half of the resource kit: from a domain spec and a wire description it registers
 * Create / Get / Update / Delete / List (and Undelete), each a command or query on the buses.
 */
@Injectable()
export class ResourceKit {
  private readonly deciders = new Map<ResourceSpec, Decider<ResourceState, ResourceCommand, ResourceEvent>>();
  /** Every registered resource, to find the read model a referenced name lives in. */
  private readonly specs: ResourceSpec[] = [];

  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly registry: MethodRegistry,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly executor: CommandExecutor,
  ) {}

  register(spec: ResourceSpec, api: ResourceApi): void {
    const { methods } = api;
    if (!api.permission && (methods.create || methods.update || methods.delete || methods.undelete)) {
      throw new Error(`${api.service}: a resource with write methods needs a permission`);
    }
    this.specs.push(spec);
    const noun = nounOf(api);
    const store = storeOf(spec);
    const checkName = nameChecker(spec, camelToSnake(api.idField));
    const present = presenter(api);
    const run = async (principal: Principal, request: MutatingRequest, name: string, command: ResourceCommand, create = false) =>
      present(await this.execute(spec, principal, request.requestId, name, command, create));
    // Validated by the envelope; a plain copy for the domain.
    const body = (request: ResourceRequest): Record<string, unknown> => ({ ...(request[api.singular] as object | undefined) });
    const definitions: MethodDefinition<object>[] = [
      this.method(api, methods.get, api.singleton ? OptionalNameRequest : NameRequest, false, async ({ principal, request }) => ({
        [api.singular]: present(
          await this.queries.execute(new GetDocumentQuery(store, principal.org, checkName(request.name || api.singleton), noun)),
        ),
      })),
    ];
    if (methods.create) {
      definitions.push(
        this.method(api, methods.create, envelope(spec, api, 'create'), true, async ({ principal, request }) => {
          const resource = body(request);
          const actor = actorOf(principal);
          // A new child needs a live parent; List and changelogs accept a deleted one.
          const parent = spec.parent ? await this.existing(spec.parent, principal.org, request.parent, 'parent', true) : undefined;
          const id = chooseId(spec, api, request, actor);
          const name = resourceName(spec, id, parent);
          const refs = await this.lookUp(spec, principal.org, resource);
          const command = await this.claimUnique(spec, principal, request.requestId, name, { type: 'Create', actor, id, resource, refs, parent });
          return { [api.singular]: await run(principal, request, name, command, true) };
        }),
      );
    }
    if (methods.update) {
      definitions.push(
        this.method(api, methods.update, envelope(spec, api, 'update'), true, async ({ principal, request }) => {
          const resource = body(request);
          const name = checkName(resource.name);
          const scope = updateScope(spec, api, request.updateMask as string | string[] | undefined);
          const actor = actorOf(principal);
          const refs = await this.lookUp(spec, principal.org, resource);
          const update: Extract<ResourceCommand, { type: 'Update' }> = {
            type: 'Update',
            actor,
            name,
            resource,
            scope: scope === 'all-provided' && api.defaultMask ? { paths: [...api.defaultMask] } : scope,
            refs,
            // An implicit resource may so far exist only in its read model (see ResourceSpec.implicit).
            ...(spec.implicit ? { existing: await this.read(store, principal.org, name) } : {}),
          };
          const command = await this.claimUnique(spec, principal, request.requestId, name, update);
          return { [api.singular]: present(await this.execute(spec, principal, request.requestId, name, command)) };
        }),
      );
    }
    if (methods.delete) {
      definitions.push(
        this.method(api, methods.delete, NameRequest, true, async ({ principal, request }) => {
          const name = checkName(request.name);
          await run(principal, request, name, { type: 'Delete', actor: actorOf(principal), name });
          return {};
        }),
      );
    }
    if (methods.list) {
      definitions.push(
        this.method(api, methods.list, spec.parent ? ParentListRequest : ListRequest, false, async ({ principal, request }) => {
          // A nested collection lists one parent's children; the parent must exist (it may be deleted).
          const scope = spec.parent ? { _parent: await this.existing(spec.parent, principal.org, (request as ParentListRequest).parent, 'parent') } : {};
          const page = await this.queries.execute(
            new ListDocumentsQuery(
              {
                collection: store,
                filters: api.filters,
                orderBy: api.orderBy,
                defaultOrder: api.defaultOrder,
                softDelete: true,
                nameSortable: api.nameSortable,
              },
              principal.org,
              request,
              scope,
            ),
          );
          // The list form may be a subset (listFields); its etag is still the whole resource's.
          const { listFields } = api;
          const shape = listFields ? (doc: Record<string, unknown>) => pick(present(doc), [...listFields, 'etag']) : present;
          return { [api.plural]: page.items.map(shape), nextPageToken: page.nextPageToken };
        }),
      );
    }
    if (methods.undelete) {
      definitions.push(
        this.method(api, methods.undelete, NameRequest, true, async ({ principal, request }) => {
          const name = checkName(request.name);
          return { [api.singular]: await run(principal, request, name, { type: 'Undelete', actor: actorOf(principal), name }) };
        }),
      );
    }
    this.registry.register(...definitions);
  }

  /**
   * An area command beyond CRUD on one resource (`UpdateDeploymentStatus`): the request DTO is
   * validated like any other; `toAction` names the resource and the action's input; the answer is
   * the resource after the action, under the resource's key.
   */
  action<Req extends MutatingRequest>(
    spec: ResourceSpec,
    api: ResourceApi,
    definition: {
      method: string;
      action: string;
      request: new () => Req;
      toAction(request: Req): { name: string; input: Record<string, unknown> };
    },
  ): void {
    const checkName = nameChecker(spec, camelToSnake(api.idField));
    const present = presenter(api);
    this.registry.register(
      this.method(api, definition.method, definition.request, true, async ({ principal, request }) => {
        const { name, input } = definition.toAction(request as Req);
        const command: ResourceCommand = { type: 'Act', action: definition.action, actor: actorOf(principal), name: checkName(name), input };
        const resource = await this.execute(spec, principal, (request as Req).requestId, name, command);
        return { [api.singular]: present(resource) };
      }),
    );
  }

  /**
   * A changelog under a resource (ChangelogApi): List by `parent`, which must name a resource of the
   * caller's organization (a soft-deleted one still has its history), and Get by name.
   */
  changelog(parent: ResourceSpec, api: ChangelogApi): void {
    const noun = nounOf(api);
    const entryId = api.entryId?.pattern.source.replace(/^\^|\$$/g, '') ?? '[^/]+';
    const entryName = new RegExp(`${namePattern(parent).source.slice(0, -1)}/${api.segment}/${entryId}$`);
    const entryRule = api.entryId ? ` (${api.entryId.rule})` : '';
    const definitions: MethodDefinition<object>[] = [
      this.method(api, api.methods.list, ParentListRequest, false, async ({ principal, request }) => {
        const name = await this.existing(parent, principal.org, (request as ParentListRequest).parent, 'parent');
        const { store: collection, filters, orderBy, defaultOrder } = api;
        const page = await this.queries.execute(
          new ListDocumentsQuery({ collection, filters, orderBy, defaultOrder, softDelete: false }, principal.org, request, {
            [api.parentPath]: name,
          }),
        );
        return { [api.plural]: page.items, nextPageToken: page.nextPageToken };
      }),
    ];
    if (api.methods.get) {
      definitions.push(
        this.method(api, api.methods.get, NameRequest, false, async ({ principal, request }) => {
          const { name } = request as NameRequest;
          if (!entryName.test(name)) {
            throw invalid(`name must look like '${nameTemplate(parent)}/${api.segment}/{id}'${entryRule}, got '${name}'`);
          }
          return { [api.singular]: await this.queries.execute(new GetDocumentQuery(api.store, principal.org, name, noun)) };
        }),
      );
    }
    this.registry.register(...definitions);
  }

  /**
   * Runs one command of the generic decider against the resource's stream and answers with the
   * resource once the read model has it (areas with a command of their own, such as the evaluations'
   * Put, call this).
   */
  async execute(
    spec: ResourceSpec,
    principal: Principal,
    requestId: string | undefined,
    name: string,
    command: ResourceCommand,
    create = false,
  ): Promise<Resource> {
    const result = await this.commands.execute(
      new ExecuteCommand<ResourceState, ResourceCommand, ResourceEvent>(
        {
          decider: this.decider(spec),
          streamId: resourceStreamId(spec, principal.org, name),
          command,
          context: { actor: command.actor, requestId },
          create,
        },
        spec.projection ?? storeOf(spec),
      ),
    );
    // An implicit resource an update left unchanged still has no stream: its read-model document is the answer.
    const unchanged = command.type === 'Update' ? command.existing : null;
    return (result.state.resource ?? unchanged) as Resource;
  }

  /** The resources a request body refers to, read from their read models (null when missing). */
  async lookUp(spec: ResourceSpec, org: string, resource: Record<string, unknown>): Promise<References> {
    const names = [...new Set(spec.references?.(resource) ?? [])];
    const found = await Promise.all(names.map(async (name) => [name, await this.read(this.storeFor(name), org, name)] as const));
    return new Map(found);
  }

  /**
   * Unique fields (ResourceSpec.unique): the command is decided once without appending, so a request
   * the rules refuse claims nothing; each unique value it would newly set is then claimed in that
   * value's guard stream (unique-claim.ts), and the command goes on carrying its claims. Two appends
   * (claim, then resource): a claim whose resource append then fails holds nothing once its in-flight
   * window has passed. See docs/decisions.md, "Customers, known issues, runbooks".
   */
  async claimUnique<C extends Extract<ResourceCommand, { type: 'Create' | 'Update' }>>(
    spec: ResourceSpec,
    principal: Principal,
    requestId: string | undefined,
    name: string,
    command: C,
  ): Promise<C> {
    if (!spec.unique?.length) return command;
    const decider = this.decider(spec);
    const { actor } = command;
    const check = await this.executor.execute({
      decider,
      streamId: resourceStreamId(spec, principal.org, name),
      command: { ...command, claimed: 'pending' },
      context: { actor, requestId },
      dryRun: true,
    });
    // A retried request_id is answered from the stream: nothing new to claim.
    if (check.replayed || check.events.length === 0) return command;
    const data = check.events[0].data;
    const changed = ('resource' in data ? data.resource : 'set' in data ? data.set : {}) as Record<string, unknown>;
    const claimed: Record<string, string> = {};
    for (const field of spec.unique) {
      const value = changed[field];
      if (typeof value !== 'string') continue;
      const claim = uniqueClaimOf(spec, field);
      await this.executor.execute({
        decider: uniqueClaimDecider(claim),
        streamId: claimStreamId(claim, principal.org, value),
        command: { type: 'Claim', actor, claimant: name, value },
        // No request_id: a retried request is judged again rather than answered from an old claim.
        context: { actor, correlationId: requestId },
        complete: async (claimCommand, state) => {
          if (state.holder === null || state.holder === name) return claimCommand;
          const holder = await this.executor.stateOf(decider, resourceStreamId(spec, principal.org, state.holder));
          return { ...claimCommand, holder: holderFacts(state.holder, holder, field) };
        },
      });
      claimed[field] = value;
    }
    return { ...command, claimed };
  }

  /** The read model a name lives in: a registered resource's, else the name's first segment (`connections/x`). */
  private storeFor(name: string): string {
    const spec = this.specs.find((s) => namePattern(s).test(name));
    return spec ? storeOf(spec) : name.slice(0, Math.max(0, name.indexOf('/')));
  }

  private async read(store: string, org: string, name: string): Promise<Resource | null> {
    const doc = store ? await this.reads.collection(store).findOne({ _id: docId(org, name) }) : null;
    return doc ? (toResponse(doc) as Resource) : null;
  }

  /**
   * A name of this kind of resource from a request field (`parent` of a nested List or Create),
   * checked and existing in the caller's organization, else INVALID_ARGUMENT or NOT_FOUND. A
   * soft-deleted one counts unless `live` (a new child needs a live parent).
   */
  async existing(spec: ResourceSpec, org: string, name: unknown, field = 'name', live = false): Promise<string> {
    const checked = nameChecker(spec, 'id', field)(name);
    const found = await this.read(storeOf(spec), org, checked);
    if (!found || (live && found.deleteTime !== undefined)) throw notFound(`${kindLabel(spec.kind)} '${checked}' not found`);
    return checked;
  }

  private decider(spec: ResourceSpec) {
    let decider = this.deciders.get(spec);
    if (!decider) this.deciders.set(spec, (decider = resourceDecider(spec)));
    return decider;
  }

  private method<Req extends object>(
    api: Pick<ResourceApi, 'service' | 'permission' | 'preserveKeysUnder' | 'deprecated'>,
    method: string,
    request: new () => Req,
    write: boolean,
    handle: MethodDefinition<Req>['handle'],
  ): MethodDefinition<object> {
    return {
      service: api.service,
      method,
      permission: write ? api.permission : undefined,
      request,
      preserveKeysUnder: api.preserveKeysUnder,
      headers: api.deprecated && deprecationHeaders(api.deprecated.since, { service: api.deprecated.successor, method }),
      handle,
    } as MethodDefinition<object>;
  }
}

/** What an update touches, from its update_mask and the resource's wire rules. */
export function updateScope(spec: ResourceSpec, api: ResourceApi, mask: string | readonly string[] | undefined): UpdateScope {
  const scope = parseUpdateMask(mask, {
    settable: spec.settable,
    outputOnly: [...OUTPUT_ONLY, ...(api.outputOnly ?? [])],
    maps: api.preserveKeysUnder?.map((p) => p.split('.').slice(1).join('.')).filter(Boolean),
  });
  if (api.maskRequired && scope === 'all-provided') throw invalid('update_mask is required and must name at least one field');
  if (api.maskRequired && scope === 'all') throw invalid("update_mask must name the fields to change; '*' (full replacement) is not supported");
  return scope;
}

/** Responses of a resource with an etag carry it, computed from the whole content (writes included). */
function presenter(api: Pick<ResourceApi, 'etag'>): <T extends Record<string, unknown>>(resource: T) => T {
  return (resource) => (api.etag ? withEtag(resource) : resource);
}

function pick(resource: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(fields.filter((f) => Object.hasOwn(resource, f)).map((f) => [f, resource[f]]));
}

/** `known issue`, for messages. */
function nounOf(api: Pick<ResourceApi, 'singular'>): string {
  return api.singular.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
}

/** Requests name resources of this collection only: `notes/{note_id}`, `services/{id}/dimensions/{...}`. */
function nameChecker(spec: ResourceSpec, idLabel = 'id', field = 'name'): (name: unknown) => string {
  const nameRule = namePattern(spec);
  return (name) => {
    if (typeof name !== 'string' || !nameRule.test(name)) {
      throw invalid(`${field} must look like '${nameTemplate(spec, idLabel)}', got '${String(name ?? '')}'`);
    }
    return name;
  };
}

/** A client-chosen ID, or one generated (deterministically from request_id, so a retry names the same resource). */
function chooseId(spec: ResourceSpec, api: ResourceApi, request: ResourceRequest, actor: Actor): string {
  const given = request[api.idField];
  if (given !== undefined && given !== null && given !== '') {
    if (typeof given !== 'string') throw invalid(`${camelToSnake(api.idField)} must be a string`);
    return given;
  }
  if (spec.idRequired) throw invalid(`${camelToSnake(api.idField)} is required`);
  return request.requestId ? uuidv5(`${actor.org}|${spec.collection}|${request.requestId}`, GENERATED_ID_NAMESPACE) : randomUUID();
}

