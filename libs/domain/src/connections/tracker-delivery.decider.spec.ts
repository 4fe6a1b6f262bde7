import { TRACKER_DELIVERY_RECORDED } from '@svc/contracts/connections/integration-ports.contract';
import type { Actor } from '../shared/decider';
import { trackerDeliveryDecider, type RecordTrackerDelivery } from './tracker-delivery.decider';

const actor: Actor = { org: 'acme', actor: 'service-accounts/agents', subject: 'service-accounts/agents', permissions: [], now: '2026-11-25T10:00:00.000Z' };
const record = (delivery: string): RecordTrackerDelivery => ({
  type: 'RecordTrackerDelivery',
  actor,
  delivery: { connection: 'connections/issues', delivery, kind: 'issues', action: 'opened', project: 'acme/ops', actor: 'octocat' },
});

describe('tracker delivery', () => {
  const { initialState, decide, evolve } = trackerDeliveryDecider;

  it('records a delivery once: the same delivery again appends nothing', () => {
    const events = decide(record('72d3162e-cc78-11e3-81ab-4c9367dc0958'), initialState());
    expect(events).toEqual([{ type: TRACKER_DELIVERY_RECORDED, data: { ...record('72d3162e-cc78-11e3-81ab-4c9367dc0958').delivery, receiveTime: actor.now } }]);
    const state = events.reduce(evolve, initialState());
    expect(decide(record('72d3162e-cc78-11e3-81ab-4c9367dc0958'), state)).toEqual([]);
  });

  it('refuses a delivery key that could not name a stream', () => {
    expect(() => decide(record('../x'), initialState())).toThrow(/delivery key/);
    expect(() => decide(record('a'.repeat(101)), initialState())).toThrow(/delivery key/);
  });
});
