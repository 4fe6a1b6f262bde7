import { SYSTEM_TAGS, SYSTEM_TAG_PREFIX, systemTagResource, tagSpec } from '@svc/domain/tags/tag.resource';
import type { Seed, SeedSource } from '../config/seed';

/**
 * Every organization holds exactly the service's current system tags: each is synced (`replace`, so a
 * changed description reaches every organization), and a live system tag the service no longer
 * defines is deleted.
 */
export const systemTagSeeds: SeedSource = async (org, reads) => {
  const wanted = new Set(SYSTEM_TAGS.map((tag) => tag.id));
  const seeds: Seed[] = SYSTEM_TAGS.map((tag) => ({ spec: tagSpec, id: tag.id, resource: systemTagResource(tag), mode: 'replace' }));
  const stored = await reads.collection(tagSpec.collection).find({ _org: org.id, system: true, deleteTime: { $exists: false } });
  for (const doc of stored) {
    const id = String(doc.name).slice(`${tagSpec.collection}/`.length);
    if (id.startsWith(SYSTEM_TAG_PREFIX) && !wanted.has(id)) seeds.push({ spec: tagSpec, id, resource: null, mode: 'replace' });
  }
  return seeds;
};
