import { Inject, Injectable } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { MutatingRequest } from '@svc/contracts/shared/requests';
import type { ChangelogApi, ResourceApi } from '@svc/contracts/shared/resource-api';
import { storeOf, type Resource, type ResourceCommand, type ResourceSpec } from '@svc/domain/shared/resource';
import { READ_STORE } from '@svc/infrastructure/nest/tokens';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { MethodRegistry, type MethodDefinition, type MethodEffect } from '../http/method-registry';
import { type FactsProvider, ResourceReferences } from './references';
import { ResourceCommands } from './resource-methods';
import {
  changelogMethods,
  createResource,
  deleteResource,
  getResource,
  listResources,
  resourceAction,
  undeleteResource,
  updateResource,
  type ActionDefinition,
  type KitParts,
} from './resource-methods';

/**
 * The API half of the resource kit: from a domain spec and a wire description it registers
 * Create / Get / Update / Delete / List (and Undelete), each a command or query on the buses.
 * The pieces live beside it: request envelopes, method builders, references, presentation, and the
 * kit's command table (ResourceCommands, in resource-methods.ts).
 */
@Injectable()
export class ResourceKit {
  private readonly parts: KitParts;

  constructor(
    commands: CommandBus,
    queries: QueryBus,
    private readonly registry: MethodRegistry,
    @Inject(READ_STORE) reads: ReadStore,
  ) {
    this.parts = { queries, references: new ResourceReferences(reads), commands: new ResourceCommands(commands) };
  }

  register(spec: ResourceSpec, api: ResourceApi): void {
    const { methods } = api;
    if (!api.permission && (methods.create || methods.update || methods.delete || methods.undelete)) {
      throw new Error(`${api.service}: a resource with write methods needs a permission`);
    }
    this.parts.references.add(spec);
    const definitions: MethodDefinition<object>[] = [];
    const store = storeOf(spec);
    const kit = (builder: string, effect: MethodEffect): MethodEffect => ({ builder: `resource kit: ${builder}`, ...effect });
    if (methods.get) definitions.push({ ...getResource(this.parts, spec, api, methods.get), effect: kit('getResource', { reads: [store] }) });
    if (methods.create) definitions.push({ ...createResource(this.parts, spec, api, methods.create), effect: kit('createResource', { appends: [`${spec.kind}Created`] }) });
    if (methods.update) definitions.push({ ...updateResource(this.parts, spec, api, methods.update), effect: kit('updateResource', { appends: [`${spec.kind}Updated`] }) });
    if (methods.delete) definitions.push({ ...deleteResource(this.parts, spec, api, methods.delete), effect: kit('deleteResource', { appends: [`${spec.kind}Deleted`] }) });
    if (methods.list) definitions.push({ ...listResources(this.parts, spec, api, methods.list), effect: kit('listResources', { reads: [store] }) });
    if (methods.undelete) definitions.push({ ...undeleteResource(this.parts, spec, api, methods.undelete), effect: kit('undeleteResource', { appends: [`${spec.kind}Undeleted`] }) });
    this.registry.register(...definitions);
  }

  /**
   * An area command beyond CRUD on one resource (`UpdateDeploymentStatus`): the request DTO is
   * validated like any other; `toAction` names the resource and the action's input; the answer is
   * the resource after the action, under the resource's key.
   */
  action<Req extends MutatingRequest>(spec: ResourceSpec, api: ResourceApi, definition: ActionDefinition<Req>): void {
    const effect: MethodEffect = { builder: 'resource kit: resourceAction', appends: [`Act '${definition.action}' on ${spec.kind}`] };
    this.registry.register({ ...resourceAction(this.parts, spec, api, definition), effect });
  }

  /** Facts a kind's creates and updates need from outside the stores (see FactsProvider). */
  provideFacts(kind: string, provider: FactsProvider): void {
    this.parts.references.provideFacts(kind, provider);
  }

  /** A changelog under a resource: List by `parent` and, when the spec has one, Get by name. */
  changelog(parent: ResourceSpec, api: ChangelogApi): void {
    const effect: MethodEffect = { builder: 'resource kit: changelogMethods', reads: [api.store] };
    this.registry.register(...changelogMethods(this.parts, parent, api).map((d) => ({ ...d, effect })));
  }

  /**
   * Sends a resource command down the write path and answers with the resource once its read model
   * has it (areas with a command of their own, such as the evaluations' Put, call this).
   */
  send(spec: ResourceSpec, requestId: string | undefined, name: string, command: ResourceCommand): Promise<Resource> {
    return this.parts.commands.send(spec, requestId, name, command);
  }
}
