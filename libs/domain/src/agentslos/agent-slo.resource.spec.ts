import type { Actor } from '../shared/decider';
import type { Resource, ResourceCommand, ResourceEvent, ResourceState } from '../shared/resource';
import { resourceDecider } from '../shared/resource.decider';
import { givenFor } from '../shared/testing';
import { agentSloSpec, healthOf, SLO_EVALUATION_RECORDED } from './agent-slo.resource';

const T0 = '2024-05-01T10:00:00.000Z';
const at = (now = T0): Actor => ({ org: 'acme', actor: 'users/al', subject: 'users/al', permissions: ['AGENTS_WRITE'], now });
const given = givenFor(resourceDecider(agentSloSpec));
const NAME = 'agents/a/slos/s';
const slo: Resource = { name: NAME, displayName: 'S', targetValue: 10, targetDirection: 'SLO_TARGET_DIRECTION_AT_OR_ABOVE', createTime: T0, updateTime: T0 };
const created: ResourceEvent = { type: 'AgentSloCreated', data: { resource: slo } };
const record = (score: unknown): ResourceCommand => ({ type: 'Act', action: SLO_EVALUATION_RECORDED, actor: at(), name: NAME, input: { score } });

describe('agent SLOs', () => {
  it('health holds at the boundary in both directions and is undefined without a target or a score', () => {
    expect(healthOf(10, 'SLO_TARGET_DIRECTION_AT_OR_ABOVE', 10)).toBe(true);
    expect(healthOf(10, 'SLO_TARGET_DIRECTION_AT_OR_ABOVE', 9.99)).toBe(false);
    expect(healthOf(10, 'SLO_TARGET_DIRECTION_AT_OR_BELOW', 10)).toBe(true);
    expect(healthOf(10, 'SLO_TARGET_DIRECTION_AT_OR_BELOW', 10.01)).toBe(false);
    expect(healthOf(undefined, 'SLO_TARGET_DIRECTION_AT_OR_ABOVE', 10)).toBeUndefined();
    expect(healthOf(10, 'SLO_TARGET_DIRECTION_AT_OR_ABOVE', undefined)).toBeUndefined();
  });

  it('create requires display_name and target_value and defaults the direction', () => {
    given().when({ type: 'Create', actor: at(), id: 's', parent: 'agents/a', resource: { targetValue: 1 } }).thenFails('INVALID_ARGUMENT', /display_name/);
    given().when({ type: 'Create', actor: at(), id: 's', parent: 'agents/a', resource: { displayName: 'S' } }).thenFails('INVALID_ARGUMENT', /target_value/);
    given()
      .when({ type: 'Create', actor: at(), id: 's', parent: 'agents/a', resource: { displayName: 'S', targetValue: 1 } })
      .thenState((state: ResourceState) => expect(state.resource?.targetDirection).toBe('SLO_TARGET_DIRECTION_AT_OR_ABOVE'));
  });

  it('refuses a non-finite or missing score', () => {
    for (const score of [Number.NaN, Infinity, -Infinity, undefined, '1']) given([created]).when(record(score)).thenFails('INVALID_ARGUMENT', /score/);
  });

  it('a record is numbered, kept among the 24 latest, and sets health', () => {
    let history: ResourceEvent[] = [created];
    for (let i = 0; i < 25; i++) {
      given(history).when(record(i)).thenState((_state, events) => (history = [...history, ...events]));
    }
    given(history).when(record(10)).thenState((state) => {
      const records = state.resource?.recentRecords as Array<{ name: string; score: number }>;
      expect(records).toHaveLength(24);
      expect(records.at(-1)).toMatchObject({ name: `${NAME}/records/26`, score: 10 });
      expect(records[0].score).toBe(2);
      expect(state.resource?.healthy).toBe(true);
    });
  });
});
