/**
 * svc.goals.v1.IndicatorsService beyond the kit's Get / List (registered by its area), and
 * svc.goals.v1.IndicatorRelationsService. Writes are commands on the indicator's stream
 * (IndicatorCommands); reads come from the indicators projection's three read models.
 */
import { Inject, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import {
  BatchGetIndicatorsRequest,
  BatchGetIndicatorsResponse,
  CompileIndicatorQueryRequest,
  CompileIndicatorQueryResponse,
  CreateIndicatorRelationRequest,
  CreateIndicatorRequest,
  INDICATOR_LIMITS,
  indicatorActivitiesApi,
  indicatorRelationsApi,
  indicatorsApi,
  ListIndicatorActivitiesRequest,
  PurgeIndicatorsRequest,
  PurgeIndicatorsResponse,
  ReportIndicatorQueryErrorRequest,
  UpdateIndicatorRequest,
} from '@svc/contracts/indicators/indicators.contract';
import { indicatorsV2Api } from '@svc/contracts/indicators/indicators-v2.contract';
import { ListRequest, NameRequest } from '@svc/contracts/shared/requests';
import type { ResourceApi } from '@svc/contracts/shared/resource-api';
import { changelogResponse, EmptyResponse, pageResponse, resourceResponse, type ResponseDeclaration } from '@svc/contracts/shared/responses';
import { INDICATOR_QUERY_FIELDS, RELATION_COLLECTION, type IndicatorState } from '@svc/domain/indicators/indicator.decider';
import { indicatorV2Spec } from '@svc/domain/indicators/indicator-v2.resource';
import { indicatorSpec } from '@svc/domain/indicators/indicator.resource';
import { DomainError, invalid, notFound } from '@svc/domain/shared/domain-error';
import { storeOf, type ResourceSpec } from '@svc/domain/shared/resource';
import { isPlainObject } from '@svc/domain/shared/json-path';
import type { Settings } from '@svc/infrastructure/config/env';
import { schemaReaderProvider } from '@svc/infrastructure/integrations/indicators/schema-reader.provider';
import { READ_STORE, SETTINGS } from '@svc/infrastructure/nest/tokens';
import { docId } from '@svc/infrastructure/projection/projection';
import { compileFilter } from '@svc/infrastructure/query';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { actorOf } from '../auth/principal';
import { ConnectionCredentials, ConnectionsModule } from '../connections/connections.module';
import { MethodRegistry, type MethodCall } from '../http/method-registry';
import { defineMethod, listMethod } from '../resource-kit/method-builders';
import { presenter, toResponse } from '../resource-kit/presentation';
import { maskScope, nameChecker, nameRule } from '../resource-kit/request-envelopes';
import { indicatorCompiler } from './compile-query';
import { IndicatorCommands } from './indicator-commands';
import { IndicatorPlanning } from './indicator-planning';

const checkName = nameChecker(indicatorSpec);
const checkParent = nameChecker(indicatorSpec, 'id', 'parent');
const checkRelation = nameRule(/^indicatorRelations\/[^/]+$/, 'indicatorRelations/{id}');
const present = presenter(indicatorsApi);
const INDICATORS = indicatorSpec.collection;

/** The indicator a command left, as answers show it. */
const indicatorOf = (state: IndicatorState) => present(state.indicator.resource as Record<string, unknown>);

/** A client's query object without the server's `status`. */
function clientFields(indicator: object): Record<string, unknown> {
  const resource: Record<string, unknown> = { ...indicator };
  if (isPlainObject(resource.query)) {
    const query = { ...resource.query };
    delete query.status;
    resource.query = query;
  }
  delete resource.name;
  return resource;
}

const isStatusPath = (path: string) => path === 'query.status' || path.startsWith('query.status.');

/**
 * The paths an UpdateIndicator touches: the mask is required, and server-managed paths (the times,
 * etag, `query.status*`) are dropped silently; a mask of only those changes nothing.
 */
function maskPaths(mask: string | string[] | undefined): string[] {
  const given = (Array.isArray(mask) ? mask : (mask ?? '').split(',')).map((p) => String(p).trim()).filter(Boolean);
  const kept = given.filter((p) => !isStatusPath(p));
  if (given.length > 0 && kept.length === 0) return [];
  // `query` as a whole, or its client fields one by one (`query.engine_sql`, `query.connections`).
  const scope = maskScope(kept, { settable: [...indicatorSpec.settable, ...INDICATOR_QUERY_FIELDS], outputOnly: indicatorsApi.outputOnly, maskRequired: true });
  return typeof scope === 'object' ? scope.paths : [...indicatorSpec.settable];
}

@Injectable()
class IndicatorMethods implements OnModuleInit {
  constructor(
    private readonly registry: MethodRegistry,
    private readonly queries: QueryBus,
    private readonly commands: IndicatorCommands,
    private readonly planning: IndicatorPlanning,
    private readonly connections: ConnectionCredentials,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  onModuleInit(): void {
    const api = indicatorsApi;
    const compile = { references: this.commands.references, connections: this.connections, typeHost: this.settings.typeHost };
    const compileMethod = (service: ResourceApi, spec: ResourceSpec) => {
      const run = indicatorCompiler(spec, service, compile);
      return defineMethod(service, 'CompileIndicatorQuery', { request: CompileIndicatorQueryRequest, response: CompileIndicatorQueryResponse }, 'read', ({ principal, request }: MethodCall<CompileIndicatorQueryRequest>) =>
        run(principal.org, request),
      );
    };
    const write = <Req extends object, Res>(method: string, request: new () => Req, response: ResponseDeclaration<Res & object>, handle: (call: MethodCall<Req>) => Promise<NoInfer<Res>>) =>
      defineMethod(api, method, { request, response }, 'write', handle);
    const INDICATOR = resourceResponse(indicatorsApi);
    this.registry.register(
      write('CreateIndicator', CreateIndicatorRequest, INDICATOR, (call) => this.create(call)),
      write('UpdateIndicator', UpdateIndicatorRequest, INDICATOR, (call) => this.update(call)),
      write('DeleteIndicator', NameRequest, EmptyResponse, async ({ principal, request }) => {
        const name = checkName(request.name);
        await this.commands.send(name, request.requestId, { type: 'DeleteIndicator', actor: actorOf(principal), name });
        return {};
      }),
      write('UndeleteIndicator', NameRequest, INDICATOR, async ({ principal, request }) => {
        const name = checkName(request.name);
        return { indicator: indicatorOf((await this.commands.send(name, request.requestId, { type: 'UndeleteIndicator', actor: actorOf(principal), name })).state) };
      }),
      write('ReportIndicatorQueryError', ReportIndicatorQueryErrorRequest, INDICATOR, async ({ principal, request }) => {
        const name = checkName(request.name);
        if (request.error.trim() === '') throw invalid('error must not be empty');
        const error = request.error.slice(0, INDICATOR_LIMITS.queryError);
        return { indicator: indicatorOf((await this.commands.send(name, request.requestId, { type: 'ReportQueryError', actor: actorOf(principal), name, error })).state) };
      }),
      write('PurgeIndicators', PurgeIndicatorsRequest, PurgeIndicatorsResponse, (call) => this.purge(call)),
      defineMethod(api, 'BatchGetIndicators', { request: BatchGetIndicatorsRequest, response: BatchGetIndicatorsResponse }, 'read', ({ principal, request }: MethodCall<BatchGetIndicatorsRequest>) =>
        this.batchGet(principal.org, request.names),
      ),
      compileMethod(api, indicatorSpec),
      // v2's only method beyond the kit's reads: its writes are frozen (docs/decisions.md, "Indicators v2").
      compileMethod(indicatorsV2Api, indicatorV2Spec),
      listMethod<ListIndicatorActivitiesRequest>(this.queries, indicatorActivitiesApi, 'ListIndicatorActivities', {
        request: ListIndicatorActivitiesRequest,
        // Purged activities carry deleteTime: show_deleted brings them (and a purged parent's log) back.
        spec: { ...indicatorActivitiesApi, collection: indicatorActivitiesApi.store, softDelete: true },
        key: indicatorActivitiesApi.plural,
        response: changelogResponse(indicatorActivitiesApi, 'page'),
        scope: async ({ principal, request }) => {
          const parent = checkParent(request.parent);
          if (request.showDeleted !== true) await this.commands.references.existing(indicatorSpec, principal.org, parent, 'parent');
          return { indicator: parent };
        },
      }),
      defineMethod(indicatorRelationsApi, 'CreateIndicatorRelation', { request: CreateIndicatorRelationRequest, response: resourceResponse(indicatorRelationsApi) }, 'write', (call: MethodCall<CreateIndicatorRelationRequest>) =>
        this.attach(call),
      ),
      defineMethod(indicatorRelationsApi, 'DeleteIndicatorRelation', { request: NameRequest, response: EmptyResponse }, 'write', (call: MethodCall<NameRequest>) => this.detach(call)),
      listMethod<ListRequest>(this.queries, indicatorRelationsApi, 'ListIndicatorRelations', {
        request: ListRequest,
        spec: { ...indicatorRelationsApi, collection: RELATION_COLLECTION, softDelete: true },
        key: indicatorRelationsApi.plural,
        response: pageResponse(indicatorRelationsApi),
      }),
    );
  }

  private async create({ principal, request }: MethodCall<CreateIndicatorRequest>) {
    const actor = actorOf(principal);
    const id = request.indicatorId || this.commands.indicatorId(actor, request.requestId);
    const name = `${INDICATORS}/${id}`;
    const initial = await this.commands.relatable(actor.org, request.initialResource, 'initial_resource');
    const resource = clientFields(request.indicator);
    const refs = await this.commands.refs(actor.org, resource);
    // Planned before the command is sent: nothing is appended for a query the engine refuses.
    const plan = await this.planning.forCreate(actor.org, resource, refs);
    const relation = { id: this.commands.relationId(actor, request.requestId, name, initial), resource: initial };
    const handled = await this.commands.send(name, request.requestId, { type: 'CreateIndicator', actor, id, resource, refs, relation, plan }, true);
    return { indicator: indicatorOf(handled.state) };
  }

  private async update({ principal, request }: MethodCall<UpdateIndicatorRequest>) {
    const name = checkName(request.indicator.name);
    const paths = maskPaths(request.updateMask);
    const description = request.activityDescription;
    if (description && description.length > INDICATOR_LIMITS.activityDescription) throw invalid(`activity_description is longer than ${INDICATOR_LIMITS.activityDescription} characters`);
    const actor = actorOf(principal);
    const resource = clientFields(request.indicator);
    const refs = await this.commands.updateRefs(actor.org, name, resource);
    const stored = await this.commands.references.read(storeOf(indicatorSpec), actor.org, name);
    const plan = await this.planning.forUpdate(actor.org, stored, resource, paths, refs);
    const handled = await this.commands.send(name, request.requestId, { type: 'UpdateIndicator', actor, name, resource, paths, refs, activityDescription: description, plan });
    return { indicator: indicatorOf(handled.state) };
  }

  private async batchGet(org: string, names: string[]) {
    const checked = names.map((n) => checkName(n));
    const docs = await this.reads.collection(INDICATORS).find({ _id: { $in: checked.map((n) => docId(org, n)) } });
    const byName = new Map(docs.map((d) => [d.name as string, d]));
    const missing = [...new Set(checked.filter((n) => !byName.has(n)))];
    if (missing.length > 0) throw notFound(`indicators not found: ${missing.join(', ')}`);
    return { indicators: checked.map((n) => present(toResponse(byName.get(n)!))) };
  }

  /** Over soft-deleted indicators only; a dry run unless force. */
  private async purge({ principal, request }: MethodCall<PurgeIndicatorsRequest>) {
    const actor = actorOf(principal);
    const filter = compileFilter(request.filter ?? '', indicatorsApi.filters);
    const where = { $and: [{ _org: actor.org }, { deleteTime: { $exists: true } }, filter].filter((c) => Object.keys(c).length > 0) };
    const docs = await this.reads.collection(INDICATORS).find(where, { sort: { name: 1 }, projection: { name: 1 } });
    const names = docs.map((d) => d.name as string);
    if (request.force !== true) return { purgeCount: String(names.length), purgeSample: names.slice(0, INDICATOR_LIMITS.purgeSample) };
    const purged: string[] = [];
    for (const name of names) {
      try {
        await this.commands.send(name, request.requestId && `${request.requestId}|${name}`, { type: 'PurgeIndicator', actor, name });
        purged.push(name);
      } catch (error) {
        // Restored or purged by someone else since the read: not ours to purge any more.
        if (!(error instanceof DomainError) || (error.code !== 'FAILED_PRECONDITION' && error.code !== 'NOT_FOUND')) throw error;
      }
    }
    return { purgeCount: String(purged.length), purgeSample: purged.slice(0, INDICATOR_LIMITS.purgeSample) };
  }

  private async attach({ principal, request }: MethodCall<CreateIndicatorRelationRequest>) {
    const actor = actorOf(principal);
    const indicator = checkName(request.indicatorRelation.indicator);
    const resource = await this.commands.relatable(actor.org, request.indicatorRelation.resource, 'indicator_relation.resource');
    const relation = { id: this.commands.relationId(actor, request.requestId, indicator, resource), resource };
    const handled = await this.commands.send(indicator, request.requestId, { type: 'AttachRelation', actor, name: indicator, relation });
    return { indicatorRelation: handled.state.relations[`${RELATION_COLLECTION}/${relation.id}`] };
  }

  private async detach({ principal, request }: MethodCall<NameRequest>) {
    const actor = actorOf(principal);
    const name = checkRelation(request.name);
    const relation = await this.commands.references.read(RELATION_COLLECTION, actor.org, name);
    if (!relation) throw notFound(`indicator relation '${name}' not found`);
    await this.commands.send(String(relation.indicator), request.requestId, { type: 'DetachRelation', actor, name: String(relation.indicator), relation: name });
    return {};
  }
}

@Module({ imports: [ConnectionsModule], providers: [IndicatorMethods, IndicatorCommands, IndicatorPlanning, schemaReaderProvider] })
export class IndicatorsModule {}
