/**
 * The indicator aggregate: one stream per indicator holding the indicator (the kit's resource
 * events), its relations (attached, detached) and its purge. Activities are not events of their
 * own: the changelog projection reads them off these events. Relation uniqueness per (indicator,
 * resource) is decided here, so the stream's expected revision makes concurrent attaches safe.
 */
import type { Actor, Decider } from '../shared/decider';
import { alreadyExists, failedPrecondition, notFound } from '../shared/domain-error';
import type { JsonObject } from '../shared/json-path';
import type { PatchData, References, ResourceEvent, ResourceState, UpdateScope } from '../shared/resource';
import { resourceDecider } from '../shared/resource.decider';
import type { IndicatorPlan } from './indicator-contract';
import { INDICATOR_PURGED, indicatorSpec, PLAN_FACT, QUERY_ERROR_REPORTED, RELATION_CREATED, RELATION_DELETED } from './indicator.resource';

export const RELATION_COLLECTION = 'indicatorRelations';
/**
 * The query subfields a client sets, each a mask path of its own (`query.engine_sql`); `query.status`
 * is the server's (dropped from masks, kept by updates).
 */
export const INDICATOR_QUERY_FIELDS: readonly string[] = ['query.connections', 'query.engineSql', 'query.description'];

export interface IndicatorRelation {
  name: string;
  indicator: string;
  resource: string;
  createTime: string;
  updateTime: string;
  deleteTime?: string;
}

export type IndicatorCommand =
  | { type: 'CreateIndicator'; actor: Actor; id: string; resource: JsonObject; refs: References; relation: { id: string; resource: string }; plan?: IndicatorPlan }
  | { type: 'UpdateIndicator'; actor: Actor; name: string; resource: JsonObject; paths: string[]; refs: References; activityDescription?: string; plan?: IndicatorPlan }
  | { type: 'DeleteIndicator'; actor: Actor; name: string }
  | { type: 'UndeleteIndicator'; actor: Actor; name: string }
  | { type: 'ReportQueryError'; actor: Actor; name: string; error: string }
  | { type: 'PurgeIndicator'; actor: Actor; name: string }
  | { type: 'AttachRelation'; actor: Actor; name: string; relation: { id: string; resource: string } }
  | { type: 'DetachRelation'; actor: Actor; name: string; relation: string };

export type IndicatorEvent = ResourceEvent;

export interface IndicatorState {
  indicator: ResourceState;
  /** By name; evolve adds and replaces entries in place (decider.ts, the fold contract). */
  relations: Record<string, IndicatorRelation>;
  /** Relations the last delete took down with the indicator: exactly these come back on undelete. */
  cascaded: readonly string[];
  purged: boolean;
}

/** Activity text of an event of the indicator stream, or undefined when it writes none. */
export function activityOf(event: IndicatorEvent): string | undefined {
  const data = event.data as JsonObject;
  switch (event.type) {
    case 'IndicatorCreated':
      return 'Indicator created.';
    case 'IndicatorUpdated':
      return typeof data.activity === 'string' ? data.activity : 'Indicator updated.';
    case 'IndicatorDeleted':
      return 'Indicator archived.';
    case 'IndicatorUndeleted':
      return 'Indicator restored.';
    case QUERY_ERROR_REPORTED:
      return typeof data.activity === 'string' ? data.activity : undefined;
    default:
      return undefined;
  }
}

const kit = resourceDecider(indicatorSpec);

/** The plan the command path made, as the kit hands facts to `validate`. */
const planFacts = (plan: IndicatorPlan | undefined) => (plan ? { [PLAN_FACT]: plan } : undefined);

const relationName = (id: string) => `${RELATION_COLLECTION}/${id}`;

function attach(state: IndicatorState, indicator: string, relation: { id: string; resource: string }, now: string): IndicatorEvent {
  const name = relationName(relation.id);
  if (state.relations[name]) throw alreadyExists(`indicator relation '${name}' already exists`);
  const live = Object.values(state.relations).find((r) => r.resource === relation.resource && r.deleteTime === undefined);
  if (live) throw alreadyExists(`indicator '${indicator}' is already related to '${relation.resource}' (${live.name})`);
  return { type: RELATION_CREATED, data: { relation: { name, indicator, resource: relation.resource, createTime: now, updateTime: now } } as never };
}

function liveIndicator(state: IndicatorState, name: string): void {
  if (state.indicator.resource === null || state.indicator.deleted || state.purged) throw notFound(`indicator '${name}' not found`);
}

function decide(command: IndicatorCommand, state: IndicatorState): IndicatorEvent[] {
  const { actor } = command;
  if (state.purged && command.type !== 'CreateIndicator') throw notFound(`indicator '${command.name}' not found`);
  switch (command.type) {
    case 'CreateIndicator': {
      if (state.purged) throw alreadyExists(`indicator '${indicatorSpec.collection}/${command.id}' was purged; its name stays taken`);
      const [created] = kit.decide({ type: 'Create', actor, id: command.id, resource: command.resource, refs: command.refs, facts: planFacts(command.plan) }, state.indicator);
      const name = (created.data as { resource: { name: string } }).resource.name;
      return [created, attach(state, name, command.relation, actor.now)];
    }
    case 'UpdateIndicator': {
      // `query` as a whole means its client fields: the status stays the server's.
      const paths = command.paths.flatMap((p) => (p === 'query' ? INDICATOR_QUERY_FIELDS : [p]));
      const scope: UpdateScope = { paths };
      const events = kit.decide({ type: 'Update', actor, name: command.name, resource: command.resource, scope, refs: command.refs, facts: planFacts(command.plan) }, state.indicator);
      return events.map((event) => {
        const data = event.data as PatchData;
        const requeried = Object.keys(data.set).some((p) => p.startsWith('query.')) || data.unset.some((p) => p.startsWith('query.'));
        // A changed query was planned again just now: a fresh validate_time, the old error gone.
        const set = requeried ? { ...data.set, 'query.status.validateTime': actor.now } : data.set;
        const unset = requeried ? [...data.unset, 'query.status.error'] : data.unset;
        return { ...event, data: { ...data, set, unset, activity: command.activityDescription || 'Indicator updated.' } } as IndicatorEvent;
      });
    }
    case 'DeleteIndicator': {
      const [deleted] = kit.decide({ type: 'Delete', actor, name: command.name }, state.indicator);
      const relations = Object.values(state.relations).filter((r) => r.deleteTime === undefined).map((r) => r.name);
      return [{ ...deleted, data: { ...deleted.data, relations } } as IndicatorEvent];
    }
    case 'UndeleteIndicator': {
      const [undeleted] = kit.decide({ type: 'Undelete', actor, name: command.name }, state.indicator);
      return [{ ...undeleted, data: { ...undeleted.data, relations: [...state.cascaded] } } as IndicatorEvent];
    }
    case 'ReportQueryError':
      return kit.decide({ type: 'Act', action: 'reportQueryError', actor, name: command.name, input: { error: command.error } }, state.indicator);
    case 'PurgeIndicator': {
      if (state.indicator.resource === null) throw notFound(`indicator '${command.name}' not found`);
      if (!state.indicator.deleted) throw failedPrecondition(`indicator '${command.name}' is not deleted; only soft-deleted indicators can be purged`);
      return [{ type: INDICATOR_PURGED, data: { purgeTime: actor.now, relations: Object.keys(state.relations) } as never }];
    }
    case 'AttachRelation':
      liveIndicator(state, command.name);
      return [attach(state, command.name, command.relation, actor.now)];
    case 'DetachRelation': {
      const relation = state.relations[command.relation];
      if (!relation || relation.deleteTime !== undefined) throw notFound(`indicator relation '${command.relation}' not found`);
      return [{ type: RELATION_DELETED, data: { relation: relation.name, deleteTime: actor.now } as never }];
    }
    default:
      return assertNever(command);
  }
}

/**
 * Updates the state in place (decider.ts, the fold contract): an attach costs the same on the
 * thousandth relation as on the first. Relations are replaced, never edited; a delete or undelete
 * touches only the relations its event names.
 */
function evolve(state: IndicatorState, event: IndicatorEvent): IndicatorState {
  const data = event.data as JsonObject;
  const { relations } = state;
  switch (event.type) {
    case RELATION_CREATED: {
      const relation = data.relation as IndicatorRelation;
      relations[relation.name] = relation;
      return state;
    }
    case RELATION_DELETED: {
      const name = data.relation as string;
      relations[name] = { ...relations[name], deleteTime: data.deleteTime as string, updateTime: data.deleteTime as string };
      return state;
    }
    case INDICATOR_PURGED:
      state.purged = true;
      state.relations = {};
      return state;
    case 'IndicatorDeleted': {
      const cascaded = (data.relations as string[] | undefined) ?? [];
      for (const name of cascaded) relations[name] = { ...relations[name], deleteTime: data.deleteTime as string, updateTime: data.deleteTime as string };
      state.indicator = kit.evolve(state.indicator, event);
      state.cascaded = cascaded;
      return state;
    }
    case 'IndicatorUndeleted': {
      for (const name of (data.relations as string[] | undefined) ?? []) {
        const restored: IndicatorRelation = { ...relations[name], updateTime: data.updateTime as string };
        delete restored.deleteTime;
        relations[name] = restored;
      }
      state.indicator = kit.evolve(state.indicator, event);
      state.cascaded = [];
      return state;
    }
    default:
      state.indicator = kit.evolve(state.indicator, event);
      return state;
  }
}

export const indicatorDecider: Decider<IndicatorState, IndicatorCommand, IndicatorEvent> = {
  initialState: () => ({ indicator: kit.initialState(), relations: {}, cascaded: [], purged: false }),
  evolve,
  decide,
};

function assertNever(value: never): never {
  throw new Error(`unhandled indicator command ${JSON.stringify(value)}`);
}
