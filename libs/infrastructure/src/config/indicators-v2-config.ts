/**
 * The `indicators_v2:` section of an organization in the operator configuration: the frozen v2
 * indicators and their relations. Keys are snake_case in the file and lowerCamelCase once stored.
 * Each entry is judged by the domain rule v1 shares (libs/domain/src/indicators) with the SAME
 * organization's configured connections (their dialect; the placeholders; the output names its SQL
 * states), so a bad entry fails before anything is applied. Parsing does no I/O, so the entries are
 * not planned against a live schema as v1's are. See docs/decisions.md, "Indicators v2" and
 * "Indicators planned against the live schema".
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { judgeIndicatorRelationV2, judgeIndicatorV2 } from '@svc/domain/indicators/indicator-v2.resource';
import { INDICATOR_ID } from '@svc/domain/indicators/indicator.resource';
import type { JsonObject } from '@svc/domain/shared/json-path';
import type { Resource } from '@svc/domain/shared/resource';
import { addIssue, judgeEntry, list, mapping, text } from './config-schema';

export interface IndicatorV2Config {
  id: string;
  /** The indicator as it should be (lowerCamelCase; `query.status` is the seed's to add). */
  resource: JsonObject;
  relations: Array<{ id: string; resource: string }>;
}

/** The part of a configured connection the rule reads: its name and details (`details.sqldb`: dialect, port). */
export interface ConnectionSchemaSource {
  id: string;
  details: Record<string, unknown>;
}

/** A relation's ID: derived from the indicator and the resource, so every apply names the same one. */
export const relationV2Id = (indicatorId: string, resource: string) =>
  `v2-${indicatorId}-${createHash('sha256').update(resource).digest('hex').slice(0, 12)}`;

const judged = z.unknown().meta({ description: 'judged by the indicator rules (libs/domain/src/indicators)' }).optional();
const FIELD = 'is not a field a v2 indicator takes';

const query = mapping({ connections: judged, engine_sql: judged, description: judged }, FIELD);

const entry = mapping(
  {
    id: z.string({ error: INDICATOR_ID.idRule }).regex(INDICATOR_ID.idPattern, { error: INDICATOR_ID.idRule }),
    display_name: judged,
    description: judged,
    kind: judged,
    unit: judged,
    query: query.optional(),
    resources: list(text()).meta({ description: "agents/{id}, issues/{id}, investigations/{id} or monitoring-plans/{id}; checked by form only" }),
  },
  FIELD,
).transform(({ id, resources, query: q, ...fields }) => {
  const resource: JsonObject = {};
  for (const [key, value] of Object.entries({ displayName: fields.display_name, description: fields.description, kind: fields.kind, unit: fields.unit })) {
    if (value !== null && value !== undefined) resource[key] = value as JsonObject[string];
  }
  if (q) {
    const stored: JsonObject = {};
    for (const [key, value] of Object.entries({ connections: q.connections, engineSql: q.engine_sql, description: q.description })) {
      if (value !== null && value !== undefined) stored[key] = value as JsonObject[string];
    }
    resource.query = stored;
  }
  return { id, resource, resources: resources ?? [] };
});

/** The list as written; `judgeIndicatorsV2` judges it once the organization's connections are known. */
export const indicatorV2List = () => list(entry).meta({ description: 'frozen v2 indicators (indicators-v2/{id}), synced to match the file' });

type Entry = z.output<typeof entry>;

/**
 * Judges each entry by the shared rule with the organization's connections as references, checks IDs
 * and each indicator's resources for repeats, and derives relation IDs. Issues go at
 * `indicators_v2[i]` of the organization and name the entry.
 */
export function judgeIndicatorsV2(entries: readonly Entry[], connections: readonly ConnectionSchemaSource[], ctx: z.RefinementCtx): IndicatorV2Config[] {
  const refs = new Map<string, Resource>(connections.map((c) => [`connections/${c.id}`, { name: `connections/${c.id}`, connectionDetails: c.details as JsonObject }]));
  const seen = new Set<string>();
  return entries.map((e, i) => {
    const at = (message: string, path: Array<string | number> = []) => addIssue(ctx, `indicator '${e.id}': ${message}`, ['indicators_v2', i, ...path], true);
    if (seen.has(e.id)) at('appears twice', ['id']);
    seen.add(e.id);
    const named = Array.isArray((e.resource.query as JsonObject | undefined)?.connections) ? ((e.resource.query as JsonObject).connections as unknown[]) : [];
    const unknown = named.filter((c) => typeof c === 'string' && !refs.has(c));
    if (unknown.length > 0) at(`connection ${unknown.map((c) => `'${String(c)}'`).join(', ')} is not configured in this organization (connections:)`, ['query', 'connections']);
    else judgeEntry(at, () => judgeIndicatorV2({ ...e.resource, name: `indicators-v2/${e.id}` }, undefined, refs));
    const resources = new Set<string>();
    const relations = e.resources.map((resource, j) => {
      if (resources.has(resource)) at(`resource '${resource}' is listed twice`, ['resources', j]);
      resources.add(resource);
      judgeEntry((message) => at(message, ['resources', j]), () => judgeIndicatorRelationV2({ indicator: `indicators-v2/${e.id}`, resource }));
      return { id: relationV2Id(e.id, resource), resource };
    });
    return { id: e.id, resource: e.resource, relations };
  });
}
