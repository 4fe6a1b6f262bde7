import type { TriggerOccasionEvent } from '@svc/contracts/reactors/trigger-occasion.events';
import type { Actor } from '../shared/decider';
import { type TriggerOccasionCommand, triggerOccasionsDecider as decider } from './trigger-occasions.decider';

const actor: Actor = { org: 'acme', actor: 'triggers/t', subject: 'triggers/t', permissions: [], now: '2024-01-01T00:00:10Z' };
const given = (events: TriggerOccasionEvent[]) => events.reduce(decider.evolve, decider.initialState());
const fire = (occasion: string, occasionTime: string, cooldownMs?: number): TriggerOccasionCommand => ({
  type: 'FireOccasion', actor, occasion, source: 'row', session: 'agents/a/sessions/s', occasionTime, cooldownMs,
});
const fired = (occasion: string, occasionTime: string): TriggerOccasionEvent => ({
  type: 'TriggerOccasionFired', data: { occasion, source: 'row', session: 'agents/a/sessions/s', occasionTime, fireTime: occasionTime },
});

describe('trigger occasions', () => {
  it('fires an occasion once: a second fire of the same occasion decides nothing', () => {
    expect(decider.decide(fire('e1/0', '2024-01-01T00:00:00Z'), given([]))).toHaveLength(1);
    expect(decider.decide(fire('e1/0', '2024-01-01T00:00:00Z'), given([fired('e1/0', '2024-01-01T00:00:00Z')]))).toEqual([]);
  });

  it('holds a fire back within the cooldown of the previous one, by occasion time, and lets it through after', () => {
    const state = given([fired('e1/0', '2024-01-01T00:00:00Z')]);
    expect(decider.decide(fire('e2/0', '2024-01-01T00:00:59.999Z', 60_000), state)).toEqual([]);
    expect(decider.decide(fire('e3/0', '2024-01-01T00:01:00Z', 60_000), state)).toHaveLength(1);
  });

  it('schedules a post-deploy fire once per occasion, and not after it fired', () => {
    const schedule: TriggerOccasionCommand = { type: 'ScheduleFire', actor, occasion: 'deployments/d1', source: 'post_deploy', dueTime: '2024-01-01T00:01:00Z', cause: 'deployments/d1' };
    const events = decider.decide(schedule, given([]));
    expect(events).toHaveLength(1);
    expect(decider.decide(schedule, given(events))).toEqual([]);
    expect(decider.decide(schedule, given([fired('deployments/d1', '2024-01-01T00:01:00Z')]))).toEqual([]);
  });

});
