/**
 * The I/O half of CreateIndicator / UpdateIndicator validation (docs/decisions.md, "Indicators planned
 * against the live schema"): before the command is sent (so before anything is appended), the
 * indicator as it will be stored is checked by the pure rule, then its query is planned against the
 * live schema of its connections. The plan travels in the command; the decider checks it against the
 * kind, and that it is the plan of the SQL it stores.
 */
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { IndicatorPlan } from '@svc/domain/indicators/indicator-contract';
import { INDICATOR_QUERY_FIELDS } from '@svc/domain/indicators/indicator.decider';
import { checkQueryText, judgeIndicator, needsPlan, queryDialect } from '@svc/domain/indicators/indicator.resource';
import { DomainError } from '@svc/domain/shared/domain-error';
import { getPath, isPlainObject, isPresent, setPath, unsetPath, type JsonObject } from '@svc/domain/shared/json-path';
import type { References, Resource } from '@svc/domain/shared/resource';
import { IndicatorPlanner, type PlannedConnection } from '@svc/infrastructure/integrations/indicators/indicator-planner';
import { INDICATOR_SCHEMA_READER } from '@svc/infrastructure/integrations/indicators/schema-reader.provider';
import type { SchemaReader } from '@svc/infrastructure/integrations/tools/tool-adapter.port';
import { ConnectionCredentials } from '../connections/connections.module';

@Injectable()
export class IndicatorPlanning implements OnModuleDestroy {
  readonly planner: IndicatorPlanner;

  constructor(
    @Inject(INDICATOR_SCHEMA_READER) reader: SchemaReader,
    private readonly credentials: ConnectionCredentials,
  ) {
    this.planner = new IndicatorPlanner(reader);
  }

  async onModuleDestroy(): Promise<void> {
    await this.planner.engine.close();
  }

  /**
   * The plan of a new indicator, or undefined when the decider will refuse it anyway for a reason that
   * needs no plan (a connection that does not exist). Cheap rules fail first, before any I/O.
   */
  async forCreate(org: string, resource: JsonObject, refs: References): Promise<IndicatorPlan | undefined> {
    return this.planOf(org, resource as Resource, undefined, refs);
  }

  /**
   * The plan of an update, made for the indicator as the read model shows it with the mask's paths
   * applied; undefined when the update changes neither the SQL, its connections nor the kind. Should
   * the stream hold another version by the time of the decision, the decider refuses (ABORTED).
   */
  async forUpdate(org: string, stored: Resource | null, input: JsonObject, paths: readonly string[], refs: References): Promise<IndicatorPlan | undefined> {
    if (!stored || stored.deleteTime !== undefined) return undefined;
    let merged: Resource = stored;
    for (const path of paths.flatMap((p) => (p === 'query' ? INDICATOR_QUERY_FIELDS : [p]))) {
      const value = getPath(input, path);
      merged = isPresent(value) ? setPath(merged, path, value) : unsetPath(merged, path);
    }
    if (!needsPlan(merged, stored)) return undefined;
    return this.planOf(org, merged, stored, refs);
  }

  private async planOf(org: string, resource: Resource, previous: Resource | undefined, refs: References): Promise<IndicatorPlan | undefined> {
    try {
      judgeIndicator(resource, previous, refs);
    } catch (error) {
      // Text that is not SQL at all is told as such, before the placeholders it lacks.
      if (error instanceof DomainError && error.message.includes('must reference @')) {
        const query = resource.query as { engineSql: string; connections: string[] };
        await this.planner.checkSyntax({ engineSql: query.engineSql, dialect: queryDialect(query.connections, refs), connections: [] });
      }
      throw error;
    }
    const { engineSql, connections, dialect } = checkQueryText(resource, refs);
    const docs = connections.map((name) => ({ name, doc: refs.get(name) }));
    if (docs.some((c) => !c.doc)) return undefined;
    const planned: PlannedConnection[] = docs.map(({ name, doc }) => ({
      name,
      type: String(doc!.connectionType ?? ''),
      details: isPlainObject(doc!.connectionDetails) ? doc!.connectionDetails : {},
      // Secrets are opened only to read the database's catalog, and only here.
      open: async () => {
        const resolved = await this.credentials.resolve(org, name);
        const details = isPlainObject(resolved.connectionDetails) && isPlainObject(resolved.connectionDetails.sqldb) ? resolved.connectionDetails.sqldb : {};
        return { name, type: String(resolved.connectionType ?? ''), details };
      },
    }));
    return this.planner.plan({ org, engineSql, dialect, connections: planned });
  }
}
