/**
 * The indicator resource (spec part 3, "Indicator") as the resource kit's fold sees it: fields, ID
 * rule, field rules. The indicator aggregate (indicator.decider.ts) wraps it with relations, the
 * cascade and purge; the query is judged here against the connections the command carries.
 */
import { INDICATOR_KINDS, INDICATOR_LIMITS } from '@svc/contracts/indicators/enums';
import { invalid } from '../shared/domain-error';
import { deepEqual, isPlainObject, type JsonObject } from '../shared/json-path';
import type { References, Resource, ResourceSpec } from '../shared/resource';
import { checkIndicatorSql, type DeclaredSchema } from './indicator-query';

/** Event types of the indicator stream beyond the indicator's own resource events. */
export const RELATION_CREATED = 'IndicatorRelationAttached';
export const RELATION_DELETED = 'IndicatorRelationDetached';
export const INDICATOR_PURGED = 'IndicatorPurged';
export const QUERY_ERROR_REPORTED = 'IndicatorQueryErrorReported';

/** Kebab-case slug (spec: "optional kebab-case slug"); the 63-character cap is ours. */
const KEBAB = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const CONNECTION = /^connections\/[^/]+$/;

const queryOf = (resource: JsonObject): JsonObject => (isPlainObject(resource.query) ? resource.query : {});

/** Where a connection declares its tables: `details.sqldb.schema` (table to column to type) in the operator config. */
export function declaredSchema(connections: readonly string[], refs: References): DeclaredSchema {
  const tables = new Map<string, string[]>();
  for (const name of connections) {
    const connection = refs.get(name);
    const details = connection && isPlainObject(connection.connectionDetails) ? connection.connectionDetails : {};
    const sqldb = isPlainObject(details.sqldb) ? details.sqldb : undefined;
    if (!sqldb || !isPlainObject(sqldb.schema)) {
      throw invalid(`connection '${name}' declares no schema (details.sqldb.schema in the operator configuration), so the query cannot be planned`);
    }
    for (const [table, columns] of Object.entries(sqldb.schema)) {
      if (isPlainObject(columns)) tables.set(table, Object.keys(columns));
    }
  }
  return tables;
}

function checkQuery(resource: Resource, previous: Resource | undefined, refs: References): void {
  const query = queryOf(resource);
  const connections = query.connections;
  if (!Array.isArray(connections) || connections.length === 0) throw invalid('indicator.query.connections is required (at least one connection name)');
  if (connections.length > INDICATOR_LIMITS.connections) throw invalid(`indicator.query.connections holds at most ${INDICATOR_LIMITS.connections} names`);
  for (const name of connections) if (typeof name !== 'string' || !CONNECTION.test(name)) throw invalid(`indicator.query.connections: '${String(name)}' must look like 'connections/{id}'`);
  const sql = query.engineSql;
  if (typeof sql !== 'string' || sql.trim() === '') throw invalid('indicator.query.engine_sql is required');
  if (sql.length > INDICATOR_LIMITS.engineSql) throw invalid(`indicator.query.engine_sql is longer than ${INDICATOR_LIMITS.engineSql} characters`);
  // An update that changes neither the SQL, its connections nor the kind is not planned again.
  const before = previous ? queryOf(previous) : undefined;
  if (before && deepEqual(before.engineSql, sql) && deepEqual(before.connections, connections) && previous?.kind === resource.kind) return;
  checkIndicatorSql(sql, String(resource.kind), declaredSchema(connections as string[], refs));
}

/**
 * The indicator rule v1 and v2 share (docs/decisions.md, "Indicators v2"): display name, kind and the
 * query, whose SQL is planned against the declared schemas of the connections in `refs`.
 */
export function judgeIndicator(resource: Resource, previous: Resource | undefined, refs: References): void {
  const name = resource.displayName;
  if (typeof name !== 'string' || name.trim() === '') throw invalid('indicator.display_name is required');
  if (name.length > INDICATOR_LIMITS.displayName) throw invalid(`indicator.display_name is longer than ${INDICATOR_LIMITS.displayName} characters`);
  if (typeof resource.description === 'string' && resource.description.length > INDICATOR_LIMITS.description) {
    throw invalid(`indicator.description is longer than ${INDICATOR_LIMITS.description} characters`);
  }
  if (!(INDICATOR_KINDS as readonly unknown[]).includes(resource.kind)) throw invalid(`indicator.kind is required: one of ${INDICATOR_KINDS.join(', ')}`);
  checkQuery(resource, previous, refs);
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
  validate: (resource, { previous, refs }) => judgeIndicator(resource, previous, refs),
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
