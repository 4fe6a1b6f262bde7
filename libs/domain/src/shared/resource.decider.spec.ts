import type { Actor } from './decider';
import { invalid } from './domain-error';
import { applyResourceEvent, resourceDecider } from './resource.decider';
import {
  namePattern,
  nameTemplate,
  parentName,
  resourceName,
  snapshotOf,
  storeOf,
  type Resource,
  type ResourceCommand,
  type ResourceEvent,
  type ResourceSpec,
  type UpdateScope,
} from './resource';
import { given } from './testing';

const widgetSpec: ResourceSpec = {
  kind: 'Widget',
  collection: 'widgets',
  idRequired: true,
  idPattern: /^[a-z][a-z0-9-]*$/,
  idRule: 'widget_id must start with a lowercase letter',
  settable: ['displayName', 'color', 'labels', 'size'],
  immutable: ['color'],
  defaults: { size: 1 },
  undeletable: true,
  onCreate: (resource, actor) => ({ ...resource, createdBy: actor.subject }),
  validate: (resource) => {
    if (typeof resource.size !== 'number' || resource.size < 1) throw invalid('size must be at least 1');
  },
};
const widgets = resourceDecider(widgetSpec);
const nonRestorable = resourceDecider({ ...widgetSpec, kind: 'KnownIssue', collection: 'known-issues', undeletable: false });

const T0 = '2024-01-01T00:00:00Z';
const T1 = '2024-01-02T00:00:00Z';
const T2 = '2024-01-03T00:00:00Z';
const actorAt = (now: string): Actor => ({
  org: 'acme',
  actor: 'users/alice',
  subject: 'users/alice',
  permissions: ['KNOWLEDGE_WRITE'],
  now,
});

const create = (id: string, resource: Record<string, unknown>): ResourceCommand => ({
  type: 'Create',
  actor: actorAt(T0),
  id,
  resource,
});
const update = (resource: Record<string, unknown>, scope: UpdateScope, now = T1): ResourceCommand => ({
  type: 'Update',
  actor: actorAt(now),
  name: 'widgets/w1',
  resource,
  scope,
});
const del = (now = T1): ResourceCommand => ({ type: 'Delete', actor: actorAt(now), name: 'widgets/w1' });
const undelete = (now = T2): ResourceCommand => ({ type: 'Undelete', actor: actorAt(now), name: 'widgets/w1' });

const w1: Resource = {
  name: 'widgets/w1',
  displayName: 'One',
  color: 'red',
  labels: { env: 'prod', team: 'core' },
  size: 1,
  createdBy: 'users/alice',
  createTime: T0,
  updateTime: T0,
};
const created: ResourceEvent = { type: 'WidgetCreated', data: { resource: w1 } };
const deleted: ResourceEvent = { type: 'WidgetDeleted', data: { deleteTime: T1 } };
const updated = (set: Record<string, unknown>, unset: string[], updateTime = T1): ResourceEvent => ({
  type: 'WidgetUpdated',
  data: { set, unset, updateTime },
});

describe('resource decider: create', () => {
  it('keeps only settable fields over the defaults, names the resource and stamps times, then onCreate', () => {
    given(widgets)
      .when(
        create('w1', {
          displayName: 'One',
          color: 'red',
          labels: { env: 'prod', team: 'core' },
          name: 'widgets/other', // output only: dropped
          createTime: '1999-01-01T00:00:00Z', // output only: dropped
          bogus: true, // unknown: dropped
          size: null, // null counts as absent: the default applies
        }),
      )
      .then([created]);
  });

  it('rejects an existing resource, even a soft-deleted one', () => {
    given(widgets, [created]).when(create('w1', {})).thenFails('ALREADY_EXISTS', "widget 'widgets/w1' already exists");
    given(widgets, [created, deleted]).when(create('w1', {})).thenFails('ALREADY_EXISTS', /already exists/);
  });

  it('checks the ID against the spec rule', () => {
    given(widgets).when(create('W1', {})).thenFails('INVALID_ARGUMENT', /widget_id must start with a lowercase letter/);
    given(widgets).when(create('', {})).thenFails('INVALID_ARGUMENT');
  });

  it('judges the ID before existence, so an ID only seeds may hold is INVALID_ARGUMENT even when taken', () => {
    const seeded: ResourceEvent = { type: 'WidgetCreated', data: { resource: { ...w1, name: 'widgets/SVC' } } };
    given(widgets, [seeded]).when(create('SVC', {})).thenFails('INVALID_ARGUMENT', /widget_id/);
  });

  it('validates the resource after onCreate', () => {
    given(widgets).when(create('w1', { size: 0 })).thenFails('INVALID_ARGUMENT', 'size must be at least 1');
  });

  it('folds to the created resource', () => {
    given(widgets)
      .when(create('w1', { displayName: 'One' }))
      .thenState((state) => {
        expect(state.deleted).toBe(false);
        expect(state.resource).toMatchObject({ name: 'widgets/w1', displayName: 'One', size: 1, createdBy: 'users/alice' });
      });
  });
});

describe('resource decider: update', () => {
  it('is NOT_FOUND for a missing or soft-deleted resource', () => {
    given(widgets).when(update({ displayName: 'x' }, 'all-provided')).thenFails('NOT_FOUND', "widget 'widgets/w1' not found");
    given(widgets, [created, deleted]).when(update({ displayName: 'x' }, 'all-provided')).thenFails('NOT_FOUND');
  });

  it("'all' sets every mutable field and clears the absent ones; immutable fields are ignored", () => {
    given(widgets, [created])
      .when(update({ displayName: 'Two', color: 'blue', size: 1 }, 'all'))
      .then([updated({ displayName: 'Two' }, ['labels'])]);
  });

  it("'all-provided' touches only the fields present (null counts as absent)", () => {
    given(widgets, [created])
      .when(update({ displayName: 'Two', labels: null, color: 'blue', createTime: T2, bogus: 1 }, 'all-provided'))
      .then([updated({ displayName: 'Two' }, [])]);
  });

  it('a mask sets listed paths, clears listed paths absent from the input, ignores immutable and unknown ones', () => {
    given(widgets, [created])
      .when(update({ displayName: 'Two', size: 3, color: 'blue' }, { paths: ['displayName', 'labels', 'color', 'name', 'bogus'] }))
      .then([updated({ displayName: 'Two' }, ['labels'])]);
  });

  it('a dotted mask path sets or clears one map key', () => {
    given(widgets, [created])
      .when(update({ labels: { env: 'dev', owner: 'bob' } }, { paths: ['labels.env', 'labels.team', 'labels.owner'] }))
      .thenState((state, events) => {
        expect(events).toEqual([updated({ 'labels.env': 'dev', 'labels.owner': 'bob' }, ['labels.team'])]);
        expect(state.resource).toEqual({ ...w1, labels: { env: 'dev', owner: 'bob' }, updateTime: T1 });
      });
  });

  it('a map path covers its keys, so listing both does not conflict', () => {
    given(widgets, [created])
      .when(update({ labels: { a: '1' } }, { paths: ['labels.env', 'labels'] }))
      .then([updated({ labels: { a: '1' } }, [])]);
  });

  it('rejects a malformed path', () => {
    given(widgets, [created]).when(update({}, { paths: ['labels.'] })).thenFails('INVALID_ARGUMENT', /invalid field path/);
    given(widgets, [created]).when(update({}, { paths: ['labels.__proto__'] })).thenFails('INVALID_ARGUMENT');
  });

  it('emits nothing when nothing changes (deep equality, key order free)', () => {
    given(widgets, [created]).when(update({ labels: { team: 'core', env: 'prod' }, displayName: 'One' }, 'all-provided')).thenNothing();
    given(widgets, [created]).when(update({}, { paths: ['labels.missing'] })).thenNothing();
  });

  it('validates the merged resource', () => {
    given(widgets, [created]).when(update({ size: 0 }, 'all-provided')).thenFails('INVALID_ARGUMENT', /size/);
    // 'all' without size clears it, and the merged resource then fails validation
    given(widgets, [created]).when(update({ displayName: 'One' }, 'all')).thenFails('INVALID_ARGUMENT', /size/);
  });

  it('passes the previous resource to validate', () => {
    const seen: Array<Resource | undefined> = [];
    const spy = resourceDecider({ ...widgetSpec, validate: (_resource, { previous }) => void seen.push(previous) });
    given(spy, [created]).when(update({ displayName: 'Two' }, 'all-provided')).then([updated({ displayName: 'Two' }, [])]);
    expect(seen).toEqual([w1]);
  });
});

describe('resource decider: delete and undelete', () => {
  it('soft-deletes a live resource', () => {
    given(widgets, [created])
      .when(del())
      .thenState((state, events) => {
        expect(events).toEqual([deleted]);
        expect(state).toEqual({ resource: { ...w1, deleteTime: T1 }, deleted: true });
      });
  });

  it('is NOT_FOUND for a missing or already deleted resource', () => {
    given(widgets).when(del()).thenFails('NOT_FOUND', /widgets\/w1/);
    given(widgets, [created, deleted]).when(del()).thenFails('NOT_FOUND');
  });

  it('undeletes a deleted resource, clearing deleteTime', () => {
    given(widgets, [created, deleted])
      .when(undelete())
      .thenState((state, events) => {
        expect(events).toEqual([{ type: 'WidgetUndeleted', data: { updateTime: T2 } }]);
        expect(state).toEqual({ resource: { ...w1, updateTime: T2 }, deleted: false });
      });
  });

  it('undelete: NOT_FOUND when missing, FAILED_PRECONDITION when live', () => {
    given(widgets).when(undelete()).thenFails('NOT_FOUND');
    given(widgets, [created]).when(undelete()).thenFails('FAILED_PRECONDITION', "widget 'widgets/w1' is not deleted");
  });

  it('undelete is UNIMPLEMENTED for a kind that does not support it', () => {
    given(nonRestorable, []).when(undelete()).thenFails('UNIMPLEMENTED', /known issue resources cannot be undeleted/);
  });
});

describe('applyResourceEvent', () => {
  it('keeps extra read-model fields and creates missing maps for dotted sets', () => {
    const { labels: _labels, displayName: _displayName, ...rest } = w1;
    const doc = { ...rest, displayName: 'One', _org: 'acme', _pos: 3 };
    expect(applyResourceEvent(doc, updated({ 'labels.env': 'dev' }, ['displayName']))).toStrictEqual({
      ...rest,
      labels: { env: 'dev' },
      _org: 'acme',
      _pos: 3,
      updateTime: T1,
    });
  });

  it('throws on an event for a resource that was never created', () => {
    expect(() => applyResourceEvent(null, deleted)).toThrow(/never created/);
  });
});

describe('resource kit extensions', () => {
  const created: ResourceEvent = { type: 'WidgetCreated', data: { resource: w1 } };

  describe('references', () => {
    const linked = resourceDecider({
      ...widgetSpec,
      settable: [...widgetSpec.settable, 'tags'],
      references: (r) => (Array.isArray(r.tags) ? (r.tags as string[]) : []),
    });
    const tag = (name: string, extra: Record<string, unknown> = {}): Resource => ({ name, ...extra });

    it('accepts references that exist and are live', () => {
      const refs = new Map([['tags/a', tag('tags/a')]]);
      given(linked).when({ ...create('w1', { tags: ['tags/a'] }), refs } as ResourceCommand).thenState((state) => {
        expect(state.resource?.tags).toEqual(['tags/a']);
      });
    });

    it('refuses a missing or soft-deleted reference with INVALID_ARGUMENT naming it', () => {
      given(linked).when({ ...create('w1', { tags: ['tags/none'] }), refs: new Map() } as ResourceCommand).thenFails('INVALID_ARGUMENT', /tags\/none/);
      const refs = new Map([['tags/old', tag('tags/old', { deleteTime: T0 })]]);
      given(linked).when({ ...create('w1', { tags: ['tags/old'] }), refs } as ResourceCommand).thenFails('INVALID_ARGUMENT', /tags\/old/);
    });

    it('does not re-judge references the resource already had', () => {
      const history: ResourceEvent[] = [{ type: 'WidgetCreated', data: { resource: { ...w1, tags: ['tags/gone'] } } }];
      // tags/gone has since been deleted; renaming the widget must still work.
      given(linked, history).when({ ...update({ displayName: 'Renamed' }, 'all-provided'), refs: new Map() } as ResourceCommand).then([
        { type: 'WidgetUpdated', data: { set: { displayName: 'Renamed' }, unset: [], updateTime: T1 } },
      ]);
    });
  });

  describe('readOnly', () => {
    const guardedSpecReadOnly = (r: Resource) => (r.system ? `widget '${r.name}' is a system widget` : undefined);
    const guarded = resourceDecider({ ...widgetSpec, readOnly: guardedSpecReadOnly });
    const system: ResourceEvent = { type: 'WidgetCreated', data: { resource: { ...w1, system: true } } };

    it('refuses update, delete, undelete and area actions on a read-only resource with FAILED_PRECONDITION', () => {
      given(guarded, [system]).when(update({ displayName: 'x' }, 'all-provided')).thenFails('FAILED_PRECONDITION', /system widget/);
      given(guarded, [system]).when(del()).thenFails('FAILED_PRECONDITION', /system widget/);
      given(guarded, [system, deleted]).when(undelete()).thenFails('FAILED_PRECONDITION', /system widget/);
      const acting = resourceDecider({ ...widgetSpec, readOnly: guardedSpecReadOnly, actions: { Touch: () => ({ event: 'WidgetTouched', set: { size: 2 } }) } });
      given(acting, [system])
        .when({ type: 'Act', action: 'Touch', actor: actorAt(T1), name: 'widgets/w1', input: {} })
        .thenFails('FAILED_PRECONDITION', /system widget/);
    });

    it('lets Sync (the operator, not the API) change and delete a read-only resource', () => {
      const sync = (resource: Record<string, unknown> | null): ResourceCommand => ({ type: 'Sync', actor: actorAt(T1), id: 'w1', resource, mode: 'replace' });
      given(guarded, [system]).when(sync(null)).then([{ type: 'WidgetDeleted', data: { deleteTime: T1 } }]);
      given(guarded, [system]).when(sync({ ...w1, displayName: 'New', system: true })).then([updated({ displayName: 'New' }, [])]);
    });

    it('leaves other resources writable', () => {
      given(guarded, [created]).when(del()).then([{ type: 'WidgetDeleted', data: { deleteTime: T1 } }]);
    });
  });

  describe('actions', () => {
    const resize = resourceDecider({
      ...widgetSpec,
      actions: {
        Resize: (r, input) =>
          r.size === input.size ? null : { event: 'WidgetResized', set: { size: input.size }, data: { from: r.size } },
      },
    });
    const act = (size: number): ResourceCommand => ({ type: 'Act', action: 'Resize', actor: actorAt(T1), name: 'widgets/w1', input: { size } });

    it('appends the action event with its patch and payload, applied like an update', () => {
      const [event] = given(resize, [created]).when(act(3)).then([
        { type: 'WidgetResized', data: { from: 1, set: { size: 3 }, unset: [], updateTime: T1 } },
      ]);
      expect(applyResourceEvent(w1, event)).toMatchObject({ size: 3, updateTime: T1 });
    });

    it('answers nothing when the action changes nothing, and NOT_FOUND on a deleted resource', () => {
      given(resize, [created]).when(act(1)).thenNothing();
      given(resize, [created, { type: 'WidgetDeleted', data: { deleteTime: T1 } }]).when(act(3)).thenFails('NOT_FOUND');
    });

    it('recomputes derived fields in the action patch and, with snapshots, carries the resource after it', () => {
      const derived = resourceDecider({
        ...widgetSpec,
        snapshots: true,
        derive: (r) => ({ big: typeof r.size === 'number' && r.size > 2 ? true : undefined }),
        actions: { Resize: (_r, input) => ({ event: 'WidgetResized', set: { size: input.size } }) },
      });
      const [grown] = given(derived, [created]).when(act(3)).then([
        {
          type: 'WidgetResized',
          data: { set: { size: 3, big: true }, unset: [], updateTime: T1, snapshot: { ...w1, size: 3, big: true, updateTime: T1 } },
        },
      ]);
      const big = applyResourceEvent(w1, grown) as Resource;
      given(derived, [created, grown]).when(act(1)).then([
        {
          type: 'WidgetResized',
          data: { set: { size: 1 }, unset: ['big'], updateTime: T1, snapshot: { ...w1, updateTime: T1 } },
        },
      ]);
      expect(big.big).toBe(true);
    });
  });

  describe('sync', () => {
    const sync = (resource: Record<string, unknown> | null, mode: 'replace' | 'ensure' = 'replace'): ResourceCommand => ({
      type: 'Sync',
      actor: actorAt(T1),
      id: 'svc:w1',
      resource,
      mode,
    });
    const seeded: Resource = { name: 'widgets/svc:w1', size: 1, displayName: 'One', createTime: T1, updateTime: T1 };
    const seededEvent: ResourceEvent = { type: 'WidgetCreated', data: { resource: seeded } };

    it('creates a missing resource without applying the client ID rule', () => {
      given(widgets).when(sync({ displayName: 'One' })).then([seededEvent]);
    });

    it('changes nothing when the resource already matches, and ensure never edits', () => {
      given(widgets, [seededEvent]).when(sync({ displayName: 'One', size: 1 })).thenNothing();
      given(widgets, [seededEvent]).when(sync({ displayName: 'Other' }, 'ensure')).thenNothing();
    });

    it('updates changed fields and clears fields no longer given', () => {
      given(widgets, [seededEvent]).when(sync({ size: 2 })).then([
        { type: 'WidgetUpdated', data: { set: { size: 2 }, unset: ['displayName'], updateTime: T1 } },
      ]);
    });

    it('deletes a resource no longer wanted and undeletes it when it returns', () => {
      const deleted: ResourceEvent = { type: 'WidgetDeleted', data: { deleteTime: T1 } };
      given(widgets, [seededEvent]).when(sync(null)).then([deleted]);
      given(widgets, [seededEvent, deleted]).when(sync(null)).thenNothing();
      given(widgets, [seededEvent, deleted]).when(sync({ displayName: 'One', size: 1 })).then([
        { type: 'WidgetUndeleted', data: { updateTime: T1 } },
      ]);
    });
  });

  describe('nested resources', () => {
    const parts = resourceDecider({ ...widgetSpec, kind: 'WidgetPart', collection: 'parts', parent: widgetSpec, store: 'widgetParts', validate: undefined, onCreate: undefined });

    it('names a child under its parent on create and sync', () => {
      given(parts)
        .when({ type: 'Create', actor: actorAt(T0), id: 'p1', parent: 'widgets/w1', resource: { displayName: 'P' } })
        .thenState((state) => expect(state.resource?.name).toBe('widgets/w1/parts/p1'));
      given(parts)
        .when({ type: 'Sync', actor: actorAt(T0), id: 'p2', parent: 'widgets/w1', resource: {}, mode: 'replace' })
        .thenState((state) => expect(state.resource?.name).toBe('widgets/w1/parts/p2'));
    });

    it('knows its name pattern, template and parent', () => {
      const spec = { ...widgetSpec, kind: 'WidgetPart', collection: 'parts', parent: widgetSpec };
      expect(namePattern(spec).test('widgets/w1/parts/p1')).toBe(true);
      expect(namePattern(spec).test('widgets/w1/parts')).toBe(false);
      expect(namePattern(spec).test('parts/p1')).toBe(false);
      expect(namePattern(widgetSpec).test('widgets/w1/parts/p1')).toBe(false);
      expect(nameTemplate(spec, 'part_id')).toBe('widgets/{id}/parts/{part_id}');
      expect(parentName('widgets/w1/parts/p1')).toBe('widgets/w1');
      expect(resourceName(spec, 'p1', 'widgets/w1')).toBe('widgets/w1/parts/p1');
      expect(() => resourceName(spec, 'p1')).toThrow(/parent is required/);
      expect(storeOf({ ...spec, store: 'widgetParts' })).toBe('widgetParts');
      expect(storeOf(widgetSpec)).toBe('widgets');
    });
  });

  describe('snapshots', () => {
    const snapshotted = resourceDecider({ ...widgetSpec, snapshots: true });

    it('adds the resource after each event to every event but Created', () => {
      given(snapshotted, [created])
        .when(update({ displayName: 'Two' }, 'all-provided'))
        .then([{ type: 'WidgetUpdated', data: { set: { displayName: 'Two' }, unset: [], updateTime: T1, snapshot: { ...w1, displayName: 'Two', updateTime: T1 } } }]);
      given(snapshotted).when(create('w1', { displayName: 'One', color: 'red', labels: { env: 'prod', team: 'core' } })).then([created]);
      given(snapshotted, [created]).when(del()).then([{ type: 'WidgetDeleted', data: { deleteTime: T1, snapshot: { ...w1, deleteTime: T1 } } }]);
    });

    it('gives each event of one command the state after that event (undelete, then update)', () => {
      const seeded: ResourceEvent = { type: 'WidgetCreated', data: { resource: { ...w1, name: 'widgets/s1' } } };
      const gone: ResourceEvent = { type: 'WidgetDeleted', data: { deleteTime: T1 } };
      const back = { displayName: 'Back', color: 'red', labels: w1.labels, size: 1 };
      let undeleted!: ResourceEvent;
      let changed!: ResourceEvent;
      given(snapshotted, [seeded, gone])
        .when({ type: 'Sync', actor: actorAt(T2), id: 's1', resource: back, mode: 'replace' })
        .thenState((_state, events) => ([undeleted, changed] = events));
      expect([undeleted.type, changed.type]).toEqual(['WidgetUndeleted', 'WidgetUpdated']);
      expect(snapshotOf(undeleted)).toMatchObject({ displayName: 'One', updateTime: T2 });
      expect(snapshotOf(undeleted)?.deleteTime).toBeUndefined();
      expect(snapshotOf(changed)).toMatchObject({ displayName: 'Back', updateTime: T2 });
      expect(snapshotOf(seeded)).toEqual({ ...w1, name: 'widgets/s1' });
    });
  });
});

describe('resource kit: derived and unique fields', () => {
  const coded = resourceDecider({
    ...widgetSpec,
    undeletable: false,
    settable: [...widgetSpec.settable, 'code'],
    derive: (r) => ({ codeLength: typeof r.code === 'string' ? r.code.length : undefined }),
    unique: ['code'],
  });
  const withCode: ResourceEvent = { type: 'WidgetCreated', data: { resource: { ...w1, code: 'abc', codeLength: 3 } } };

  it('derives output-only fields on create, ignoring a value the client sent', () => {
    given(coded).when({ ...create('w1', { code: 'abcd', codeLength: 99 }), claimed: { code: 'abcd' } } as ResourceCommand).thenState((state) => {
      expect(state.resource).toMatchObject({ code: 'abcd', codeLength: 4 });
    });
  });

  it('recomputes derived fields in the update patch, and clears them when their source goes', () => {
    given(coded, [withCode]).when({ ...update({ code: 'abcde' }, 'all-provided'), claimed: { code: 'abcde' } } as ResourceCommand).then([
      { type: 'WidgetUpdated', data: { set: { code: 'abcde', codeLength: 5 }, unset: [], updateTime: T1 } },
    ]);
    given(coded, [withCode]).when(update({}, { paths: ['code'] })).then([
      { type: 'WidgetUpdated', data: { set: {}, unset: ['code', 'codeLength'], updateTime: T1 } },
    ]);
  });

  it('sets a unique value only under a claim for that value (ABORTED otherwise)', () => {
    given(coded).when(create('w1', { code: 'abc' })).thenFails('ABORTED', /code was being claimed/);
    given(coded).when({ ...create('w1', { code: 'abc' }), claimed: { code: 'other' } } as ResourceCommand).thenFails('ABORTED');
    given(coded, [withCode]).when(update({ code: 'xyz' }, 'all-provided')).thenFails('ABORTED');
  });

  it("decides a 'pending' command (the API's check before it claims) without judging claims", () => {
    given(coded).when({ ...create('w1', { code: 'abc' }), claimed: 'pending' } as ResourceCommand).then([
      expect.objectContaining({ type: 'WidgetCreated' }) as ResourceEvent,
    ]);
  });

  it('needs no claim to keep or clear a unique value, or to create without one', () => {
    given(coded, [withCode]).when(update({ code: 'abc', displayName: 'Kept' }, 'all-provided')).then([
      { type: 'WidgetUpdated', data: { set: { displayName: 'Kept' }, unset: [], updateTime: T1 } },
    ]);
    given(coded).when(create('w1', {})).then([expect.objectContaining({ type: 'WidgetCreated' }) as ResourceEvent]);
  });

  it('refuses a spec that combines unique fields with undelete or implicit creation', () => {
    expect(() => resourceDecider({ ...widgetSpec, unique: ['code'] })).toThrow(/do not combine with undelete/);
    expect(() => resourceDecider({ ...widgetSpec, undeletable: false, implicit: true, unique: ['code'] })).toThrow(/do not combine with implicit/);
  });

  it('refuses Put and Sync, which carry no claims, for a kind with unique fields', () => {
    expect(() => coded.decide({ type: 'Put', actor: actorAt(T0), id: 'w1', resource: { code: 'abc' } }, coded.initialState())).toThrow(
      /Put does not claim/,
    );
    expect(() =>
      coded.decide({ type: 'Sync', actor: actorAt(T0), id: 'w1', resource: { code: 'abc' }, mode: 'replace' }, coded.initialState()),
    ).toThrow(/Sync does not claim/);
  });

  it('derives output-only fields when Sync creates or changes a resource', () => {
    const derivedOnly = resourceDecider({ ...widgetSpec, settable: [...widgetSpec.settable, 'code'], derive: (r) => ({ codeLength: String(r.code ?? '').length }) });
    const sync = (resource: Record<string, unknown>): ResourceCommand => ({ type: 'Sync', actor: actorAt(T1), id: 'w1', resource, mode: 'replace' });
    given(derivedOnly).when(sync({ code: 'ab', size: 1 })).thenState((state) => expect(state.resource).toMatchObject({ codeLength: 2 }));
    given(derivedOnly, [{ type: 'WidgetCreated', data: { resource: { name: 'widgets/w1', code: 'ab', codeLength: 2, size: 1, createTime: T0, updateTime: T0 } } }])
      .when(sync({ code: 'abcd', size: 1 }))
      .then([updated({ code: 'abcd', codeLength: 4 }, [])]);
  });
});

describe('resource decider: implicit resources and put', () => {
  const implicit = resourceDecider({ ...widgetSpec, implicit: true });
  const projected: Resource = { name: 'widgets/w1', size: 1, createTime: T0, updateTime: T0 };
  const updateExisting = (resource: Record<string, unknown>, existing: Resource | null): ResourceCommand => ({
    type: 'Update',
    actor: actorAt(T1),
    name: 'widgets/w1',
    resource,
    scope: 'all-provided',
    existing,
  });

  it('starts the stream of a resource known only to its read model, then applies the update', () => {
    given(implicit)
      .when(updateExisting({ displayName: 'Two' }, projected))
      .then([{ type: 'WidgetCreated', data: { resource: projected } }, updated({ displayName: 'Two' }, [])]);
  });

  it('is NOT_FOUND without a read-model document, and appends nothing when nothing changes', () => {
    given(implicit).when(updateExisting({ displayName: 'Two' }, null)).thenFails('NOT_FOUND');
    given(implicit).when(updateExisting({ size: 1 }, projected)).thenNothing();
    // Only kinds that declare themselves implicit start a stream this way.
    given(widgets).when(updateExisting({ displayName: 'Two' }, projected)).thenFails('NOT_FOUND');
  });

  it('with snapshots, the implicit Created carries none and the update carries the resource after it', () => {
    const snapshotted = resourceDecider({ ...widgetSpec, implicit: true, snapshots: true });
    given(snapshotted)
      .when(updateExisting({ displayName: 'Two' }, projected))
      .then([
        { type: 'WidgetCreated', data: { resource: projected } },
        { type: 'WidgetUpdated', data: { set: { displayName: 'Two' }, unset: [], updateTime: T1, snapshot: { ...projected, displayName: 'Two', updateTime: T1 } } },
      ]);
  });

  it('refuses a deleted read-model document as NOT_FOUND', () => {
    given(implicit).when(updateExisting({ displayName: 'Two' }, { ...projected, deleteTime: T0 })).thenFails('NOT_FOUND');
  });

  it('ignores the read-model document once the stream exists', () => {
    given(implicit, [created])
      .when(updateExisting({ displayName: 'Two' }, { ...projected, displayName: 'stale' }))
      .then([updated({ displayName: 'Two' }, [])]);
  });

  it('put creates a missing resource and otherwise updates the provided fields', () => {
    const put = (resource: Record<string, unknown>): ResourceCommand => ({ type: 'Put', actor: actorAt(T0), id: 'w1', resource });
    given(widgets).when(put({ displayName: 'One', color: 'red', labels: { env: 'prod', team: 'core' } })).then([created]);
    given(widgets, [created]).when(put({ displayName: 'Two' })).then([updated({ displayName: 'Two' }, [], T0)]);
    given(widgets, [created]).when(put({ displayName: 'One' })).thenNothing();
    given(widgets).when(put({ size: 0 })).thenFails('INVALID_ARGUMENT', /size/);
  });
});
