/**
 * The monitoring plan's own commands, in random sequences: the plans' read model (the kit projection,
 * applied by the SQLite adapter) holds what the decider's fold holds, and every event after Created
 * carries the plan after it (`snapshot`, which the issues reactor reads).
 */
import 'reflect-metadata';
import fc from 'fast-check';
import { monitoringPlansApi } from '@svc/contracts/monitoringplans/monitoringplans.contract';
import { monitoringPlanDecider, planNameFor, type PlanCommand } from '@svc/domain/monitoringplans/monitoring-plan.decider';
import { monitoringPlanSpec } from '@svc/domain/monitoringplans/monitoring-plan.resource';
import type { Actor } from '@svc/domain/shared/decider';
import { resourceStreamId, type Resource, type ResourceState } from '@svc/domain/shared/resource';
import type { RecordedEvent } from '@svc/infrastructure/event-store/event-store.port';
import { docId } from '@svc/infrastructure/projection/projection';
import { resourceProjection } from '@svc/infrastructure/projection/resource.projection';
import { SqliteReadStore } from '@svc/infrastructure/read-store/sqlite-read-store';
import { issueLinks } from './plan-issues.reactor';

const PR = { repository: 'acme/app', number: 3, url: 'local-git://acme/app/pull/3', headSha: 'h', authorLogin: 'ada', authorId: '1' };
type Step =
  | { type: 'record'; title: string; merged: boolean; issues: string[]; state: string }
  | { type: 'activate'; environments: string[] }
  | { type: 'comment'; id: string };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    type: fc.constant('record' as const),
    title: fc.constantFrom('a', 'b'),
    merged: fc.boolean(),
    issues: fc.subarray(['issues/a', 'issues/b', 'issues/c']),
    state: fc.constantFrom('ISSUE_WORKFLOW_STATE_ACTIONABLE', 'ISSUE_WORKFLOW_STATE_CLOSED'),
  }),
  fc.record({ type: fc.constant('activate' as const), environments: fc.subarray(['production', 'staging', 'deployment-environments/production']) }),
  fc.record({ type: fc.constant('comment' as const), id: fc.constantFrom('1', '2') }),
);

describe('monitoring plan: projection agrees with the fold', () => {
  let reads: SqliteReadStore;
  let run = 0;
  beforeAll(() => {
    reads = new SqliteReadStore({ file: ':memory:' });
  });
  afterAll(() => reads.close());

  it('for any sequence of recordings, activations and comments', async () => {
    const projection = resourceProjection(monitoringPlanSpec, monitoringPlansApi);
    const name = planNameFor(PR);
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const org = `o${++run}`;
        let state: ResourceState = monitoringPlanDecider.initialState();
        let pos = 0;
        for (const [i, s] of steps.entries()) {
          const actor: Actor = { org, actor: 'users/alice', subject: 'users/alice', permissions: [], now: new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString() };
          const command: PlanCommand =
            s.type === 'record'
              ? { type: 'RecordPullRequest', actor, pullRequest: { ...PR, title: s.title, body: '', mergeSha: s.merged ? 'm' : null }, issues: s.issues.map((issue) => ({ issue, workflowState: s.state })) }
              : s.type === 'activate'
                ? { type: 'Activate', actor, name, entries: s.environments.map((environment) => ({ environment, deployment: '', deployTime: actor.now })) }
                : { type: 'RecordInProgressComment', actor, name, commentId: s.id };
          let events;
          try {
            events = monitoringPlanDecider.decide(command, state);
          } catch {
            continue;
          }
          for (const event of events) {
            state = monitoringPlanDecider.evolve(state, event);
            const snapshot = (event.data as { snapshot?: Resource }).snapshot;
            if (snapshot) expect(snapshot).toEqual(state.resource);
            pos += 1;
            const record = { streamId: resourceStreamId(monitoringPlanSpec, org, name), revision: BigInt(pos), position: { commit: BigInt(pos), prepare: BigInt(pos) } } as unknown as RecordedEvent;
            await reads.commitMany([{ checkpoint: `fold-${org}`, position: record.position, ops: projection.handle({ event, record, org, resourceName: name, pos }) }]);
          }
        }
        const doc = await reads.collection('monitoring-plans').findOne({ _id: docId(org, name) });
        const stored = doc && Object.fromEntries(Object.entries(doc).filter(([key]) => !key.startsWith('_')));
        expect(stored).toEqual(state.resource);
        const environments = (state.resource?.activation as { environments?: string[] } | undefined)?.environments ?? [];
        expect(new Set(environments).size).toBe(environments.length);
        if (state.resource) for (const link of issueLinks(state.resource)) expect(link.promote).toBe(environments.length > 0);
      }),
      { numRuns: 100 },
    );
  });
});
