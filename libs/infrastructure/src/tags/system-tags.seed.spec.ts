import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SYSTEM_TAGS, tagSpec } from '@svc/domain/tags/tag.resource';
import type { OrganizationConfig } from '../config/operator-config';
import { SqliteReadStore } from '../read-store/sqlite-read-store';
import { systemTagSeeds } from './system-tags.seed';

const org = { id: 'acme' } as OrganizationConfig;

describe('system tag seeds', () => {
  let dir: string;
  let reads: SqliteReadStore;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tag-seeds-'));
    reads = new SqliteReadStore({ file: path.join(dir, 'read.db') });
  });
  afterEach(async () => {
    await reads.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const tagDoc = (org: string, id: string, extra: Record<string, unknown> = {}) => ({
    op: 'update' as const,
    collection: 'tags',
    id: `${org}|tags/${id}`,
    pos: 1,
    update: { $set: { name: `tags/${id}`, system: id.startsWith('svc:'), _org: org, ...extra } },
    upsert: true,
  });

  it('replaces every current system tag in the organization', async () => {
    const seeds = await systemTagSeeds(org, reads);
    expect(seeds.map((s) => [s.spec, s.id, s.mode])).toEqual(SYSTEM_TAGS.map((t) => [tagSpec, t.id, 'replace']));
    expect(seeds.every((s) => s.resource?.system === true)).toBe(true);
  });

  it('deletes a live system tag the service no longer defines, in this organization only', async () => {
    await reads.commit({
      checkpoint: 'tags',
      position: { commit: 1n, prepare: 1n },
      ops: [
        tagDoc('acme', 'svc:retired'),
        tagDoc('acme', 'svc:long-gone', { deleteTime: '2024-01-01T00:00:00Z' }),
        tagDoc('acme', 'svc:investigation'),
        tagDoc('acme', 'team:core'),
        tagDoc('globex', 'svc:other-org'),
      ],
    });
    const removed = (await systemTagSeeds(org, reads)).filter((s) => s.resource === null);
    expect(removed.map((s) => s.id)).toEqual(['svc:retired']);
  });
});
