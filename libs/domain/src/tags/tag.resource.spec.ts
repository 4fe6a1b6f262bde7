import type { Actor } from '../shared/decider';
import type { ResourceCommand, ResourceEvent } from '../shared/resource';
import { resourceDecider } from '../shared/resource.decider';
import { given } from '../shared/testing';
import { SYSTEM_TAGS, SYSTEM_TAG_COLOR, systemTagResource, tagSpec } from './tag.resource';

const tags = resourceDecider(tagSpec);
const NOW = '2024-05-01T10:00:00Z';
const actor: Actor = { org: 'acme', actor: 'users/al', subject: 'users/al', permissions: ['AGENTS_WRITE'], now: NOW };
const createTag = (id: string, resource: Record<string, unknown> = {}): ResourceCommand => ({ type: 'Create', actor, id, resource });
const seed = (id: string, resource: Record<string, unknown> | null): ResourceCommand => ({ type: 'Sync', actor, id, resource, mode: 'replace' });
const seeded: ResourceEvent = {
  type: 'TagCreated',
  data: { resource: { name: 'tags/svc:investigation', ...systemTagResource(SYSTEM_TAGS[2]), createTime: NOW, updateTime: NOW } },
};
const userTag: ResourceEvent = {
  type: 'TagCreated',
  data: { resource: { name: 'tags/team:core', color: '#00AAFF', system: false, createTime: NOW, updateTime: NOW } },
};

describe('tags', () => {
  it('creates a user tag: system is false whatever the client sent', () => {
    given(tags)
      .when(createTag('team:payments', { displayName: 'Payments', color: '#12abEF', system: true }))
      .then([
        {
          type: 'TagCreated',
          data: {
            resource: { name: 'tags/team:payments', displayName: 'Payments', color: '#12abEF', system: false, createTime: NOW, updateTime: NOW },
          },
        },
      ]);
  });

  it('accepts letters, digits, hyphens, underscores and colons in tag_id, up to 128 characters', () => {
    for (const id of ['a', 'env:prod', 'A_b-9', ':x', 'a'.repeat(128)]) {
      given(tags).when(createTag(id)).then([expect.objectContaining({ type: 'TagCreated' }) as ResourceEvent]);
    }
    for (const id of ['', 'a b', 'a/b', 'é', 'a'.repeat(129)]) {
      given(tags).when(createTag(id)).thenFails('INVALID_ARGUMENT', /tag_id must contain only/);
    }
  });

  it("refuses IDs starting with 'svc:' in any letter case, even when the system tag exists", () => {
    given(tags).when(createTag('svc:mine')).thenFails('INVALID_ARGUMENT', /reserved for system tags/);
    given(tags).when(createTag('SVC:mine')).thenFails('INVALID_ARGUMENT', /reserved for system tags/);
    given(tags, [seeded]).when(createTag('svc:investigation')).thenFails('INVALID_ARGUMENT', /reserved/);
    // Only the prefix is reserved.
    given(tags).when(createTag('svcx:mine')).then([expect.objectContaining({ type: 'TagCreated' }) as ResourceEvent]);
  });

  it('color must be #RRGGBB', () => {
    for (const color of ['red', '#fff', '#12345G', '12345678', '#1234567']) {
      given(tags).when(createTag('c', { color })).thenFails('INVALID_ARGUMENT', /#RRGGBB/);
    }
    given(tags, [userTag])
      .when({ type: 'Update', actor, name: 'tags/team:core', resource: { color: 'blue' }, scope: { paths: ['color'] } })
      .thenFails('INVALID_ARGUMENT', /#RRGGBB/);
  });

  it('system tags cannot be updated or deleted (FAILED_PRECONDITION)', () => {
    given(tags, [seeded])
      .when({ type: 'Update', actor, name: 'tags/svc:investigation', resource: { displayName: 'Mine' }, scope: 'all-provided' })
      .thenFails('FAILED_PRECONDITION', /system tag/);
    given(tags, [seeded]).when({ type: 'Delete', actor, name: 'tags/svc:investigation' }).thenFails('FAILED_PRECONDITION', /system tag/);
  });

  it('user tags can be updated and deleted, not undeleted', () => {
    given(tags, [userTag])
      .when({ type: 'Update', actor, name: 'tags/team:core', resource: { displayName: 'Core' }, scope: 'all-provided' })
      .then([{ type: 'TagUpdated', data: { set: { displayName: 'Core' }, unset: [], updateTime: NOW } }]);
    given(tags, [userTag]).when({ type: 'Delete', actor, name: 'tags/team:core' }).then([{ type: 'TagDeleted', data: { deleteTime: NOW } }]);
    given(tags, [userTag]).when({ type: 'Undelete', actor, name: 'tags/team:core' }).thenFails('UNIMPLEMENTED');
  });

  it('the seed creates a grey, system tag and then keeps it as defined', () => {
    given(tags).when(seed('svc:investigation', systemTagResource(SYSTEM_TAGS[2]))).then([seeded]);
    given(tags, [seeded]).when(seed('svc:investigation', systemTagResource(SYSTEM_TAGS[2]))).thenNothing();
    given(tags, [seeded]).when(seed('svc:investigation', null)).then([{ type: 'TagDeleted', data: { deleteTime: NOW } }]);
    for (const tag of SYSTEM_TAGS) {
      expect(tag.id.startsWith('svc:')).toBe(true);
      expect(systemTagResource(tag)).toMatchObject({ system: true, color: SYSTEM_TAG_COLOR });
    }
  });
});
