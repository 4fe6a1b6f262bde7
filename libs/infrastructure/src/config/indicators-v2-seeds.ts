import { indicatorRelationV2Spec, indicatorV2Spec } from '@svc/domain/indicators/indicator-v2.resource';
import { deepEqual, isPlainObject, type JsonObject } from '@svc/domain/shared/json-path';
import { storeOf } from '@svc/domain/shared/resource';
import type { Doc, ReadStore } from '../read-store/read-store.port';
import type { OrganizationConfig } from './operator-config';
import type { Seed } from './seed';

/**
 * The v2 indicators' seeds: each configured indicator, then each of its relations, made to match the
 * file (`replace`); live relations, then live indicators, gone from the file are deleted (an entry
 * that comes back is undeleted by its Sync, its relations too: their IDs are derived).
 */
export async function indicatorsV2Seeds(org: OrganizationConfig, reads: ReadStore, now = () => new Date().toISOString()): Promise<Seed[]> {
  const live = { $and: [{ _org: org.id }, { deleteTime: { $exists: false } }] };
  const current = new Map<string, Doc>();
  for (const doc of await reads.collection(storeOf(indicatorV2Spec)).find({ _org: org.id })) current.set(doc.name as string, doc);
  const seeds: Seed[] = [];
  const wanted = new Set<string>();
  for (const indicator of org.indicatorsV2) {
    const name = `${indicatorV2Spec.collection}/${indicator.id}`;
    wanted.add(name);
    seeds.push({ spec: indicatorV2Spec, id: indicator.id, resource: withStatus(indicator.resource, current.get(name), now), mode: 'replace' });
    for (const relation of indicator.relations) {
      wanted.add(`${indicatorRelationV2Spec.collection}/${relation.id}`);
      seeds.push({ spec: indicatorRelationV2Spec, id: relation.id, resource: { indicator: name, resource: relation.resource }, mode: 'replace' });
    }
  }
  const gone = async (spec: typeof indicatorV2Spec) => {
    for (const doc of await reads.collection(storeOf(spec)).find(live, { sort: { name: 1 } })) {
      const name = doc.name as string;
      if (!wanted.has(name)) seeds.push({ spec, id: name.slice(name.indexOf('/') + 1), resource: null, mode: 'replace' });
    }
  };
  // Relations go before their indicator, the reverse of creation.
  await gone(indicatorRelationV2Spec);
  await gone(indicatorV2Spec);
  return seeds;
}

/**
 * `query.status` as the API shows it: the time the configuration's query was last judged. An
 * unchanged query and kind keep the stored status, so applying the same file again changes nothing.
 */
function withStatus(resource: JsonObject, stored: Doc | undefined, now: () => string): JsonObject {
  const query = isPlainObject(resource.query) ? resource.query : {};
  const before = stored && isPlainObject(stored.query) ? stored.query : undefined;
  const { status, ...clientFields } = before ?? {};
  const unchanged = before !== undefined && deepEqual(clientFields, query) && stored?.kind === resource.kind && isPlainObject(status);
  return { ...resource, query: { ...query, status: unchanged ? status : { validateTime: now() } } };
}
