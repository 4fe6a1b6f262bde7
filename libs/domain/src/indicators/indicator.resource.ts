/**
 * The indicator resource (spec part 3, "Indicator") as the resource kit's fold sees it: fields, ID
 * rule, field rules. The indicator aggregate (indicator.decider.ts) wraps it with relations, the
 * cascade and purge; the query's text is judged here, its plan (made by the api before deciding,
 * docs/decisions.md "Indicators planned against the live schema") checked against the kind.
 */
import { INDICATOR_KINDS, INDICATOR_LIMITS } from '@svc/contracts/indicators/enums';
import { DomainError, invalid } from '../shared/domain-error';
import { deepEqual, isPlainObject, type JsonObject } from '../shared/json-path';
import type { References, Resource, ResourceSpec, ValidationContext } from '../shared/resource';
import { checkIndicatorPlan, checkOutputNames, type IndicatorPlan } from './indicator-contract';
import { checkPlaceholders, declaredOutputNames, sqlDialectOf, type SqlDialect } from './indicator-sql';

/** Event types of the indicator stream beyond the indicator's own resource events. */
export const RELATION_CREATED = 'IndicatorRelationAttached';
export const RELATION_DELETED = 'IndicatorRelationDetached';
export const INDICATOR_PURGED = 'IndicatorPurged';
export const QUERY_ERROR_REPORTED = 'IndicatorQueryErrorReported';

/** Kebab-case slug (spec: "optional kebab-case slug"); the 63-character cap is ours. */
const KEBAB = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const CONNECTION = /^connections\/[^/]+$/;

const queryOf = (resource: JsonObject): JsonObject => (isPlainObject(resource.query) ? resource.query : {});

/** The key of the plan in a command's facts (ValidationContext.facts). */
export const PLAN_FACT = 'indicatorPlan';

/** The dialect a query is written in: its first connection's database's (docs/decisions.md). */
export function queryDialect(connections: readonly string[], refs: References): SqlDialect {
  const first = refs.get(connections[0]);
  try {
    return sqlDialectOf(first?.connectionDetails);
  } catch (error) {
    throw invalid(`connection '${connections[0]}': ${(error as Error).message}`);
  }
}

/**
 * Whether the query must be planned (again): on create, and on an update that changes its SQL, its
 * connections or the kind its columns are checked against.
 */
export function needsPlan(resource: Resource, previous: Resource | undefined): boolean {
  if (!previous) return true;
  const now = queryOf(resource);
  const before = queryOf(previous);
  return !(deepEqual(before.engineSql, now.engineSql) && deepEqual(before.connections, now.connections) && previous.kind === resource.kind);
}

/**
 * The query's rules that need no I/O (connections, SQL size, placeholders), checked before anything
 * expensive; returns the SQL, its connections and its dialect for the planner.
 */
export function checkQueryText(resource: Resource, refs: References): { engineSql: string; connections: string[]; dialect: SqlDialect } {
  const query = queryOf(resource);
  const connections = query.connections;
  if (!Array.isArray(connections) || connections.length === 0) throw invalid('indicator.query.connections is required (at least one connection name)');
  if (connections.length > INDICATOR_LIMITS.connections) throw invalid(`indicator.query.connections holds at most ${INDICATOR_LIMITS.connections} names`);
  for (const name of connections) if (typeof name !== 'string' || !CONNECTION.test(name)) throw invalid(`indicator.query.connections: '${String(name)}' must look like 'connections/{id}'`);
  const sql = query.engineSql;
  if (typeof sql !== 'string' || sql.trim() === '') throw invalid('indicator.query.engine_sql is required');
  if (sql.length > INDICATOR_LIMITS.engineSql) throw invalid(`indicator.query.engine_sql is longer than ${INDICATOR_LIMITS.engineSql} characters`);
  const dialect = queryDialect(connections as string[], refs);
  checkPlaceholders(sql, dialect);
  return { engineSql: sql, connections: connections as string[], dialect };
}

/**
 * The indicator rule v1 and v2 share (docs/decisions.md, "Indicators v2"): display name, kind, the
 * query's text, and, when a plan is given, its output columns against the kind. Planning is I/O, so
 * it happens before the decision (apps/api/src/indicators) and arrives here as `plan`.
 */
export function judgeIndicator(resource: Resource, previous: Resource | undefined, refs: References, plan?: IndicatorPlan): void {
  const name = resource.displayName;
  if (typeof name !== 'string' || name.trim() === '') throw invalid('indicator.display_name is required');
  if (name.length > INDICATOR_LIMITS.displayName) throw invalid(`indicator.display_name is longer than ${INDICATOR_LIMITS.displayName} characters`);
  if (typeof resource.description === 'string' && resource.description.length > INDICATOR_LIMITS.description) {
    throw invalid(`indicator.description is longer than ${INDICATOR_LIMITS.description} characters`);
  }
  if (!(INDICATOR_KINDS as readonly unknown[]).includes(resource.kind)) throw invalid(`indicator.kind is required: one of ${INDICATOR_KINDS.join(', ')}`);
  const { engineSql, connections, dialect } = checkQueryText(resource, refs);
  if (plan && needsPlan(resource, previous)) checkIndicatorPlan(String(resource.kind), engineSql, connections, plan);
  if (!plan) {
    // No engine here (the operator configuration's v2 indicators): the names the SQL states for sure are still the kind's.
    const names = declaredOutputNames(engineSql, dialect);
    if (names) checkOutputNames(String(resource.kind), names);
  }
}

/** v1's rule through the kit: a query that needs a plan and came without one is refused, never let through. */
function judgeIndicatorV1(resource: Resource, context: ValidationContext): void {
  const plan = context.facts?.[PLAN_FACT] as IndicatorPlan | undefined;
  judgeIndicator(resource, context.previous, context.refs, plan);
  if (!plan && needsPlan(resource, context.previous)) {
    // The api plans what it read as the stored indicator; the stream says the query differs (a concurrent update).
    throw new DomainError('ABORTED', 'the indicator query changed while it was being planned; retry the request');
  }
}

/** What an indicator may relate to (spec part 3), by name form, and the read model holding each. */
export const RELATABLE: ReadonlyArray<{ pattern: RegExp; store: string }> = [
  { pattern: /^agents\/[^/]+$/, store: 'agents' },
  { pattern: /^issues\/[^/]+$/, store: 'issues' },
  { pattern: /^investigations\/[^/]+$/, store: 'investigations' },
  { pattern: /^monitoring-plans\/[^/]+$/, store: 'monitoring-plans' },
];
export const RELATABLE_RULE = "must name an agent, issue, investigation or monitoring plan ('agents/{id}', 'issues/{id}', 'investigations/{id}', 'monitoring-plans/{id}')";

/** Kebab-case indicator IDs (v1 and v2). */
export const INDICATOR_ID = {
  idPattern: KEBAB,
  idRule: 'indicator_id must be kebab-case: lowercase letters, digits and single hyphens, starting and ending with a letter or digit (at most 63 characters)',
};

export const indicatorSpec: ResourceSpec = {
  kind: 'Indicator',
  collection: 'indicators',
  idRequired: false,
  ...INDICATOR_ID,
  settable: ['displayName', 'description', 'kind', 'unit', 'query'],
  undeletable: true,
  streamEvents: [RELATION_CREATED, RELATION_DELETED, INDICATOR_PURGED],
  references: (resource) => {
    const connections = queryOf(resource).connections;
    return Array.isArray(connections) ? connections.filter((c): c is string => typeof c === 'string' && CONNECTION.test(c)) : [];
  },
  validate: judgeIndicatorV1,
  onCreate: (resource, actor) => ({ ...resource, query: { ...queryOf(resource), status: { validateTime: actor.now } } }),
  actions: {
    /** ReportIndicatorQueryError: the text (already cut to its limit) and a fresh validate_time; an activity only for new text. */
    reportQueryError(resource, input, actor) {
      const error = String(input.error);
      const status = queryOf(resource).status;
      const repeated = isPlainObject(status) && status.error === error;
      return {
        event: QUERY_ERROR_REPORTED,
        set: { 'query.status.error': error, 'query.status.validateTime': actor.now },
        data: { error, ...(repeated ? {} : { activity: `Query error reported: ${error}` }) },
      };
    },
  },
};
