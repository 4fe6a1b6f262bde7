import type { TriggerOccasionEvent } from '@svc/contracts/reactors/trigger-occasion.events';
import type { Actor } from '../shared/decider';
import { type TriggerOccasionCommand, triggerOccasionsDecider as decider } from './trigger-occasions.decider';

const actor: Actor = { org: 'acme', actor: 'triggers/t', subject: 'triggers/t', permissions: [], now: '2024-01-01T00:00:10Z' };
const given = (events: TriggerOccasionEvent[]) => events.reduce(decider.evolve, decider.initialState());
const fire = (occasion: string, occasionTime: string, cooldownMs?: number): Extract<TriggerOccasionCommand, { type: 'FireOccasion' }> => ({
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

  it('an agent that is off is not started: the occasion is recorded as skipped, for good, and starts no cooldown', () => {
    const off = { ...fire('e1/0', '2024-01-01T00:00:00Z', 60_000), agent: 'agents/a', agentState: 'AGENT_STATE_OFF' };
    const events = decider.decide(off, given([]));
    expect(events).toEqual([
      {
        type: 'TriggerOccasionSkipped',
        data: { occasion: 'e1/0', source: 'row', reason: 'AGENT_STATE_OFF', agent: 'agents/a', occasionTime: '2024-01-01T00:00:00Z', skipTime: actor.now },
      },
    ]);
    const state = given(events);
    expect(state.skipped.has('e1/0')).toBe(true);
    // Recorded once; turning the agent on later does not fire the skipped occasion.
    expect(decider.decide(off, state)).toEqual([]);
    expect(decider.decide({ ...off, agentState: 'AGENT_STATE_ON' }, state)).toEqual([]);
    // The skip is no fire: the next match, within what would have been the cooldown, fires.
    expect(decider.decide({ ...fire('e2/0', '2024-01-01T00:00:01Z', 60_000), agentState: 'AGENT_STATE_ON' }, state)).toMatchObject([{ type: 'TriggerOccasionFired' }]);
  });
});
