import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResourceApi } from '@svc/contracts/shared/resource-api';
import type { Actor } from '@svc/domain/shared/decider';
import { resourceStreamId, type Resource, type ResourceCommand, type ResourceEvent, type ResourceSpec, type ResourceState } from '@svc/domain/shared/resource';
import { applyResourceEvent, resourceDecider } from '@svc/domain/shared/resource.decider';
import type { RecordedEvent } from '../event-store/event-store.port';
import { SqliteReadStore } from '../read-store';
import { docId, type ProjectedEvent } from './projection';
import { listIndexes, resourceProjection } from './resource.projection';

const boxSpec: ResourceSpec = {
  kind: 'Box',
  collection: 'boxes',
  idRequired: true,
  idPattern: /^[a-z0-9]+$/,
  idRule: 'lowercase',
  settable: ['title', 'labels', 'size'],
  undeletable: true,
  snapshots: true,
  derive: (r) => ({ big: typeof r.size === 'number' && r.size > 2 ? true : undefined }),
  actions: { Grow: (r, input) => ({ event: 'BoxGrown', set: { size: input.size }, data: { from: r.size ?? null } }) },
};
const itemSpec: ResourceSpec = { ...boxSpec, kind: 'BoxItem', collection: 'items', parent: boxSpec, store: 'boxItems', snapshots: false, actions: undefined };
const api = { filters: {}, orderBy: {}, defaultOrder: '' } as unknown as ResourceApi;

const at = (now: string): Actor => ({ org: 'acme', actor: 'users/a', subject: 'users/a', permissions: [], now });

/**
 * The projection must store exactly what the aggregate folds: every command's events go through both,
 * and the read-model document (internal fields aside) equals the aggregate's resource.
 */
describe('resourceProjection', () => {
  let dir: string;
  let reads: SqliteReadStore;
  let pos = 0;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-resource-projection-'));
    reads = new SqliteReadStore({ file: join(dir, 'read.db') });
  });
  afterEach(async () => {
    await reads.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const projectedEvent = (spec: ResourceSpec, name: string, event: ResourceEvent, revision: number): ProjectedEvent => {
    pos += 1;
    const streamId = resourceStreamId(spec, 'acme', name);
    const record = { streamId, revision: BigInt(revision), type: event.type, data: event.data } as unknown as RecordedEvent;
    return { event: event as unknown as ProjectedEvent['event'], record, org: 'acme', resourceName: name, pos };
  };

  /** Decides each command, folds its events and projects them; returns the aggregate state. */
  async function run(spec: ResourceSpec, name: string, commands: ResourceCommand[], state?: ResourceState): Promise<ResourceState> {
    const decider = resourceDecider(spec);
    const projection = resourceProjection(spec, api);
    let current = state ?? decider.initialState();
    let revision = 0;
    for (const command of commands) {
      for (const event of decider.decide(command, current)) {
        const ops = projection.handle(projectedEvent(spec, name, event, revision++));
        expect(ops).not.toHaveLength(0);
        await reads.commit({ checkpoint: projection.name, position: { commit: BigInt(pos), prepare: BigInt(pos) }, ops });
        current = decider.evolve(current, event);
      }
    }
    return current;
  }

  const stored = async (collection: string, name: string) => {
    const doc = await reads.collection(collection).findOne({ _id: docId('acme', name) });
    return doc && Object.fromEntries(Object.entries(doc).filter(([k]) => !k.startsWith('_')));
  };

  it('stores what the aggregate folds through create, patches with snapshots, actions, delete and undelete', async () => {
    const name = 'boxes/b1';
    const state = await run(boxSpec, name, [
      { type: 'Create', actor: at('2024-01-01T00:00:00Z'), id: 'b1', resource: { title: 'T', labels: { a: '1', b: '2' }, size: 1 } },
      { type: 'Update', actor: at('2024-01-02T00:00:00Z'), name, resource: { labels: { a: '9' } }, scope: { paths: ['labels.a', 'labels.b', 'title'] } },
      { type: 'Act', action: 'Grow', actor: at('2024-01-03T00:00:00Z'), name, input: { size: 5 } },
      { type: 'Delete', actor: at('2024-01-04T00:00:00Z'), name },
      { type: 'Undelete', actor: at('2024-01-05T00:00:00Z'), name },
    ]);
    expect(state.resource).toMatchObject({ labels: { a: '9' }, size: 5, big: true, updateTime: '2024-01-05T00:00:00Z' });
    expect(state.resource?.title).toBeUndefined();
    expect(await stored('boxes', name)).toEqual(state.resource);
  });

  it('keeps a deleted resource with its deleteTime, like the aggregate', async () => {
    const name = 'boxes/b2';
    const state = await run(boxSpec, name, [
      { type: 'Sync', actor: at('2024-01-01T00:00:00Z'), id: 'b2', resource: { size: 3 }, mode: 'replace' },
      { type: 'Sync', actor: at('2024-01-02T00:00:00Z'), id: 'b2', resource: null, mode: 'replace' },
    ]);
    expect(state.deleted).toBe(true);
    expect(await stored('boxes', name)).toEqual(state.resource);
  });

  it('records a nested resource’s parent in _parent, which its List is scoped by', async () => {
    const name = 'boxes/b1/items/i1';
    const state = await run(itemSpec, name, [{ type: 'Create', actor: at('2024-01-01T00:00:00Z'), id: 'i1', parent: 'boxes/b1', resource: { title: 'x' } }]);
    expect(await stored('boxItems', name)).toEqual(state.resource);
    expect(await reads.collection('boxItems').findOne({ _id: docId('acme', name) })).toMatchObject({ _parent: 'boxes/b1', _org: 'acme' });
  });

  it('an implicit resource’s Created takes over the document another projection made', async () => {
    const implicitSpec: ResourceSpec = { ...boxSpec, implicit: true };
    const name = 'boxes/b3';
    const existing: Resource = { name, size: 1, createTime: '2024-01-01T00:00:00Z', updateTime: '2024-01-01T00:00:00Z' };
    await reads.commit({
      checkpoint: 'elsewhere',
      position: { commit: 0n, prepare: 0n },
      ops: [{ op: 'update', collection: 'boxes', id: docId('acme', name), pos: 0, update: { $setOnInsert: { ...existing, _org: 'acme' } }, upsert: true }],
    });
    const state = await run(implicitSpec, name, [
      { type: 'Update', actor: at('2024-01-02T00:00:00Z'), name, resource: { title: 'lit' }, scope: 'all-provided', existing },
    ]);
    expect(state.resource).toEqual(applyResourceEvent(existing, { type: 'BoxUpdated', data: { set: { title: 'lit' }, unset: [], updateTime: '2024-01-02T00:00:00Z' } }));
    expect(await stored('boxes', name)).toEqual(state.resource);
  });

  it('ignores the events of other kinds, even one whose type ends like its own', () => {
    const projection = resourceProjection(boxSpec, api);
    const foreign = projectedEvent(itemSpec, 'boxes/b1/items/i1', { type: 'BoxItemDeleted', data: { deleteTime: '2024-01-01T00:00:00Z' } }, 1);
    expect(projection.handle(foreign)).toEqual([]);
  });
});

describe('listIndexes', () => {
  const notes = {
    filters: {
      name: { type: 'string', path: 'name' },
      create_time: { type: 'timestamp', path: 'createTime' },
      display_name: { type: 'string', path: 'displayName' },
      description: { type: 'string', path: 'description', indexed: false },
      tool_name: { type: 'string', path: 'toolName' },
      state: { type: 'enum', path: 'state' },
      size: { type: 'number', path: 'size' },
    },
    orderBy: { create_time: 'createTime', display_name: 'displayName' },
    defaultOrder: 'create_time desc',
  } as const;

  it('reads in the default order, then _id and deleteTime, on the indexed string, enum and boolean fields', () => {
    expect(listIndexes(notes)).toEqual({
      order: [
        { path: 'createTime', direction: -1 },
        { path: 'name', direction: 1 },
        { path: '_id', direction: 1 },
        { path: 'deleteTime', direction: 1 },
      ],
      paths: ['displayName', 'toolName', 'state'],
    });
    expect(resourceProjection(boxSpec, { ...api, ...notes }).listIndexes).toEqual({ boxes: listIndexes(notes) });
    // A nested resource's Lists are scoped by their parent.
    expect(resourceProjection(itemSpec, { ...api, ...notes }).listIndexes?.boxItems.paths).toEqual(['_parent', 'displayName', 'toolName', 'state']);
    // Ordered by name (the catalog): name once, and not as an equality path.
    expect(listIndexes({ ...notes, defaultOrder: 'display_name' })).toEqual({
      order: [
        { path: 'displayName', direction: 1 },
        { path: 'name', direction: 1 },
        { path: '_id', direction: 1 },
        { path: 'deleteTime', direction: 1 },
      ],
      paths: ['toolName', 'state'],
    });
  });
});
