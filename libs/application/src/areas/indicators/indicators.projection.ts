/**
 * Indicators, their relations and their activities, as one projection (one checkpoint) of the
 * indicator streams, so every indicator write that waits for it reads all three. Relations and
 * activities are views of the indicator's own events; a purge removes the indicator and its
 * relations and hides its activities (docs/decisions.md, "Indicators").
 */
import { indicatorActivitiesApi, indicatorRelationsApi, indicatorsApi } from '@svc/contracts/indicators/indicators.contract';
import { activityOf, RELATION_COLLECTION, type IndicatorEvent, type IndicatorRelation } from '@svc/domain/indicators/indicator.decider';
import { INDICATOR_PURGED, indicatorSpec, RELATION_CREATED, RELATION_DELETED } from '@svc/domain/indicators/indicator.resource';
import type { JsonObject } from '@svc/domain/shared/json-path';
import { resourceStreamId, type Resource } from '@svc/domain/shared/resource';
import { combineProjections } from '@svc/infrastructure/projection/combine';
import { docId, type ProjectedEvent, type Projection } from '@svc/infrastructure/projection/projection';
import { changelogIndexes, indexedPaths, resourceProjection } from '@svc/infrastructure/projection/resource.projection';
import type { WriteOp } from '@svc/infrastructure/read-store/read-store.port';

const INDICATOR_STREAMS = resourceStreamId(indicatorSpec, '', '').slice(0, -1);
const ACTIVITIES = indicatorActivitiesApi.store;

/** `indicators/x/activities/{n}`: n is the event's stream revision + 1, stable across rebuilds. */
const activityName = (indicator: string, revision: number) => `${indicator}/activities/${revision + 1}`;

/** When an event happened, from its own payload (the times the fold also stores). */
function timeOf(event: IndicatorEvent): string {
  const data = event.data as JsonObject;
  const time = (data.resource as Resource | undefined)?.createTime ?? data.updateTime ?? data.deleteTime ?? data.purgeTime;
  return String(time);
}

const relations: Projection = {
  name: RELATION_COLLECTION,
  version: 1,
  collections: [RELATION_COLLECTION],
  indexes: { [RELATION_COLLECTION]: indexedPaths(indicatorRelationsApi.filters, indicatorRelationsApi.orderBy) },
  handle(e) {
    if (!e.record.streamId.startsWith(INDICATOR_STREAMS)) return [];
    const data = e.event.data as JsonObject;
    const update = (name: string, ops: Record<string, Record<string, unknown>>, upsert = false): WriteOp => ({
      op: 'update',
      collection: RELATION_COLLECTION,
      id: docId(e.org, name),
      pos: e.pos,
      update: ops,
      upsert,
    });
    switch (e.event.type) {
      case RELATION_CREATED: {
        const relation = data.relation as IndicatorRelation;
        return [update(relation.name, { $set: { ...relation, _org: e.org } }, true)];
      }
      case RELATION_DELETED:
        return [update(data.relation as string, { $set: { deleteTime: data.deleteTime, updateTime: data.deleteTime } })];
      case 'IndicatorDeleted':
        return ((data.relations as string[] | undefined) ?? []).map((name) => update(name, { $set: { deleteTime: data.deleteTime, updateTime: data.deleteTime } }));
      case 'IndicatorUndeleted':
        return ((data.relations as string[] | undefined) ?? []).map((name) => update(name, { $set: { updateTime: data.updateTime }, $unset: { deleteTime: '' } }));
      case INDICATOR_PURGED:
        return ((data.relations as string[] | undefined) ?? []).map((name) => ({ op: 'delete', collection: RELATION_COLLECTION, id: docId(e.org, name) }));
      default:
        return [];
    }
  },
};

const activities: Projection = {
  name: ACTIVITIES,
  version: 1,
  collections: [ACTIVITIES],
  indexes: changelogIndexes(indicatorActivitiesApi),
  handle(e: ProjectedEvent) {
    if (!e.record.streamId.startsWith(INDICATOR_STREAMS)) return [];
    const event = e.event as IndicatorEvent;
    const revision = Number(e.record.revision);
    if (event.type === INDICATOR_PURGED) {
      // Every earlier revision may have written an activity: hide them all (a missing one is a no-op).
      const purgeTime = (event.data as JsonObject).purgeTime;
      return Array.from({ length: revision }, (_, r): WriteOp => ({
        op: 'update',
        collection: ACTIVITIES,
        id: docId(e.org, activityName(e.resourceName, r)),
        pos: e.pos,
        update: { $set: { deleteTime: purgeTime } },
      }));
    }
    const description = activityOf(event);
    if (description === undefined) return [];
    const name = activityName(e.resourceName, revision);
    const doc = { _id: docId(e.org, name), _org: e.org, name, indicator: e.resourceName, description, createTime: timeOf(event) };
    return [{ op: 'insert', collection: ACTIVITIES, doc }];
  },
};

/** The indicator documents themselves: the kit's projection, which passes over relation and purge events. */
const indicators = resourceProjection(indicatorSpec, indicatorsApi);
const purgedIndicators: Projection = {
  name: 'indicator-purges',
  version: 1,
  collections: [],
  indexes: {},
  handle: (e) =>
    e.record.streamId.startsWith(INDICATOR_STREAMS) && e.event.type === INDICATOR_PURGED
      ? [{ op: 'delete', collection: indicatorSpec.collection, id: docId(e.org, e.resourceName) }]
      : [],
};

export const indicatorsProjection = combineProjections('indicators', 1, [indicators, purgedIndicators, relations, activities]);
