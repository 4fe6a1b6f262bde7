/**
 * CompileIndicatorQuery, one implementation for v1 (`indicators/*`) and v2 (`indicators-v2/*`): the
 * stored SQL with typed literals of its database's dialect for the placeholders (PostgreSQL
 * `TIMESTAMPTZ '...'`, `INTERVAL '60 seconds'`; MySQL and BigQuery `INTERVAL 60 SECOND`) and the connections resolved into their
 * configuration values. A read: it appends nothing (spec: "persists nothing").
 */
import type { CompileIndicatorQueryRequest } from '@svc/contracts/indicators/indicators.contract';
import type { ResourceApi } from '@svc/contracts/shared/resource-api';
import { compileIndicatorSql, sqlDialectOf } from '@svc/domain/indicators/indicator-sql';
import { invalid, notFound } from '@svc/domain/shared/domain-error';
import { storeOf, type ResourceSpec } from '@svc/domain/shared/resource';
import { normaliseTime } from '@svc/domain/shared/time';
import { durationMillis } from '@svc/domain/triggers/durations';
import type { ConnectionCredentials } from '../connections/connections.module';
import { presenter } from '../resource-kit/presentation';
import { nameChecker } from '../resource-kit/request-envelopes';
import type { ResourceReferences } from '../resource-kit/references';

export interface CompileParts {
  references: ResourceReferences;
  connections: ConnectionCredentials;
  /** Host of the protobuf Any `@type` (SVC_TYPE_HOST). */
  typeHost: string;
}

/** The compile of one indicator version: its names, read model and presentation. */
export function indicatorCompiler(spec: ResourceSpec, api: Pick<ResourceApi, 'etag'>, parts: CompileParts) {
  const checkName = nameChecker(spec);
  const present = presenter(api);
  return async (org: string, request: CompileIndicatorQueryRequest) => {
    const name = checkName(request.name);
    const indicator = await parts.references.read(storeOf(spec), org, name);
    if (!indicator) throw notFound(`indicator '${name}' not found`);
    const startTime = normaliseTime(request.startTime, 'start_time');
    const endTime = normaliseTime(request.endTime, 'end_time');
    if (endTime <= startTime) throw invalid('end_time must be after start_time');
    const millis = durationMillis(request.resolution);
    if (millis === undefined || millis <= 0) throw invalid(`resolution must be a positive duration such as '60s' (got '${request.resolution}')`);
    const query = indicator.query as { engineSql: string; connections: string[] };
    const connections = await Promise.all(query.connections.map((c) => parts.connections.resolve(org, c)));
    // Literals in the dialect of the database the query reads (its first connection's), which runs it.
    let dialect;
    try {
      dialect = sqlDialectOf(connections[0]?.connectionDetails);
    } catch (error) {
      throw invalid(`connection '${query.connections[0]}': ${(error as Error).message}`);
    }
    const sql = compileIndicatorSql(query.engineSql, { startTime, endTime, resolutionSeconds: millis / 1000 }, dialect);
    return {
      queryRequest: { '@type': `${parts.typeHost}/svc.query.v2.QueryRequest`, sql, connections },
      indicator: present(indicator),
    };
  };
}
