/**
 * For every kit resource of every area: random command sequences, decided by the resource decider,
 * give the same resource whether the events are folded (the aggregate's evolve) or projected into a
 * read store (resourceProjection's updates applied by the SQLite adapter, mingo's MongoDB semantics).
 */
import 'reflect-metadata';
import fc from 'fast-check';
import type { Actor } from '@svc/domain/shared/decider';
import type { JsonObject } from '@svc/domain/shared/json-path';
import { resourceName, resourceStreamId, storeOf, type Resource, type ResourceCommand, type ResourceEvent, type ResourceState } from '@svc/domain/shared/resource';
import { resourceDecider } from '@svc/domain/shared/resource.decider';
import type { RecordedEvent } from '@svc/infrastructure/event-store/event-store.port';
import { docId } from '@svc/infrastructure/projection/projection';
import { resourceProjection } from '@svc/infrastructure/projection/resource.projection';
import { SqliteReadStore } from '@svc/infrastructure/read-store/sqlite-read-store';
import { AREAS } from '.';

const scalar = fc.oneof(fc.constantFrom('', 'a', 'b', 'x.y', 'users/alice', 'STATE_ACTIVE'), fc.string({ maxLength: 6 }), fc.integer({ min: -3, max: 3 }), fc.boolean());
const value: fc.Arbitrary<unknown> = fc.oneof(
  scalar,
  fc.constant(null),
  fc.array(scalar, { maxLength: 3 }),
  fc.dictionary(fc.constantFrom('env', 'team', 'k'), scalar, { maxKeys: 3 }),
);

type Step =
  | { type: 'Create' | 'Sync'; fields: Record<string, unknown> }
  | { type: 'Update'; fields: Record<string, unknown>; mask: string[] | null }
  | { type: 'Delete' | 'Undelete' | 'SyncDelete' };

const map = fc.dictionary(fc.constantFrom('env', 'team', 'k'), scalar, { maxKeys: 3 });

/**
 * Commands as the API can send them: any value in a plain field; a map field (the API's
 * preserveKeysUnder, validated as an object on the wire) holds an object, and only a map field's
 * keys may be named in an update_mask (parseUpdateMask refuses other dotted paths). A unique field
 * is a string (ResourceSpec.unique), from a small pool so that values collide.
 */
function steps(settable: readonly string[], maps: readonly string[], strings: readonly string[]): fc.Arbitrary<Step[]> {
  const fieldValue = (field: string): fc.Arbitrary<unknown> => {
    if (maps.includes(field)) return fc.option(map, { nil: null });
    return strings.includes(field) ? fc.constantFrom('a', 'b', 'c') : value;
  };
  const fields = fc
    .subarray([...settable])
    .chain((chosen) => fc.tuple(...chosen.map((field) => fieldValue(field).map((v) => [field, v] as const))))
    .map((entries) => Object.fromEntries(entries));
  const paths = [fc.constantFrom(...settable), ...maps.map((m) => fc.constantFrom('env', 'k').map((key) => `${m}.${key}`))];
  const path = fc.oneof(...paths);
  const step: fc.Arbitrary<Step> = fc.oneof(
    fields.map((f) => ({ type: 'Create', fields: f }) as Step),
    fields.map((f) => ({ type: 'Sync', fields: f }) as Step),
    fc.record({ fields, mask: fc.option(fc.array(path, { minLength: 1, maxLength: 3 }), { nil: null }) }).map((u) => ({ type: 'Update', ...u }) as Step),
    fc.constantFrom<Step>({ type: 'Delete' }, { type: 'Undelete' }, { type: 'SyncDelete' }),
  );
  return fc.array(step, { minLength: 1, maxLength: 10 });
}

// A resource with nothing settable is written by its own decider, not by kit commands (monitoring
// plans): its area's spec checks its fold against its projection (monitoringplans/plan-fold.spec.ts).
const resources = [...new Map(AREAS.flatMap((a) => a.resources).map((r) => [r.spec.kind, r])).values()].filter((r) => r.spec.settable.length > 0);

describe('resource projections agree with the decider fold', () => {
  let reads: SqliteReadStore;
  let run = 0;
  beforeAll(() => {
    reads = new SqliteReadStore({ file: ':memory:' });
  });
  afterAll(async () => {
    await reads.close();
  });

  it.each(resources.map((r) => [r.spec.kind, r]))('%s', async (_, { spec, api }) => {
    const decider = resourceDecider(spec);
    const projection = resourceProjection(spec, api);
    const parent = spec.parent ? resourceName(spec.parent, 'p') : undefined;
    const mapFields = (api.preserveKeysUnder ?? []).map((p) => p.split('.').slice(1).join('.')).filter(Boolean);
    /** Which lifecycle events the runs produced: the property means little for events never seen. */
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(steps(spec.settable, mapFields, spec.unique ?? []), async (sequence) => {
        const org = `o${++run}`;
        const id = 'r1';
        const name = resourceName(spec, id, parent);
        let state: ResourceState = decider.initialState();
        let pos = 0;
        let second = 0;
        for (const step of sequence) {
          const actor: Actor = { org, actor: 'users/alice', subject: 'users/alice', permissions: [], now: new Date(Date.UTC(2025, 0, 1, 0, 0, ++second)).toISOString() };
          const refsOf = (resource: JsonObject) => new Map((spec.references?.(resource) ?? []).map((ref) => [ref, { name: ref } as Resource]));
          const claimed = (resource: JsonObject) =>
            Object.fromEntries((spec.unique ?? []).filter((f) => typeof resource[f] === 'string').map((f) => [f, resource[f] as string]));
          const resource = 'fields' in step ? (step.fields as JsonObject) : {};
          let command: ResourceCommand;
          switch (step.type) {
            case 'Create':
              command = { type: 'Create', actor, id, resource, refs: refsOf(resource), claimed: claimed(resource), parent };
              break;
            case 'Update':
              command = { type: 'Update', actor, name, resource, scope: step.mask ? { paths: step.mask } : 'all-provided', refs: refsOf(resource), claimed: claimed(resource) };
              break;
            case 'Sync':
            case 'SyncDelete':
              if (spec.unique?.length) continue; // Sync refuses kinds with unique fields
              command = { type: 'Sync', actor, id, resource: step.type === 'Sync' ? resource : null, mode: 'replace', parent };
              break;
            default:
              command = { type: step.type, actor, name };
          }
          let events: ResourceEvent[];
          try {
            events = decider.decide(command, state);
          } catch {
            continue; // refused by the rules: nothing appended
          }
          for (const event of events) {
            state = decider.evolve(state, event);
            seen.add(event.type.slice(spec.kind.length));
            pos += 1;
            const record = { streamId: resourceStreamId(spec, org, name), revision: BigInt(pos), position: { commit: BigInt(pos), prepare: BigInt(pos) } } as unknown as RecordedEvent;
            const ops = projection.handle({ event, record, org, resourceName: name, pos });
            await reads.commitMany([{ checkpoint: `fold-${org}`, position: record.position, ops }]);
          }
        }
        const doc = await reads.collection(storeOf(spec)).findOne({ _id: docId(org, name) });
        const stored = doc && Object.fromEntries(Object.entries(doc).filter(([key]) => !key.startsWith('_')));
        expect(stored).toEqual(state.resource);
      }),
      { numRuns: 100 },
    );
    const lifecycle = ['Created', 'Updated', 'Deleted', ...(spec.undeletable || !spec.unique?.length ? ['Undeleted'] : [])];
    expect([...seen].filter((type) => lifecycle.includes(type)).sort()).toEqual(lifecycle.sort());
  });
});
