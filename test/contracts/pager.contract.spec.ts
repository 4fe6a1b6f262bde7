import { PagerDutyPager } from '@svc/infrastructure/integrations/pager/pagerduty.pager';
import { FakePagerDuty } from '../support/fake-pagerduty';
import { describePagerContract } from './pager.contract';

const ROUTING_KEY = 'R0123456789abcdef0123456789abcde';

describePagerContract('PagerDuty Events API v2 (fetch, against a local server answering as PagerDuty documents)', async () => {
  const fake = new FakePagerDuty([ROUTING_KEY]);
  const apiUrl = await fake.start();
  return {
    pager: (routingKey = ROUTING_KEY) => new PagerDutyPager({ connection: 'connections/pd', routingKey, apiUrl }),
    unreachable: () => new PagerDutyPager({ connection: 'connections/pd', routingKey: ROUTING_KEY, apiUrl: 'http://127.0.0.1:9', timeoutMs: 2000 }),
    throttle: (on) => {
      fake.throttle = on;
    },
    open: () =>
      [...fake.alerts.entries()].map(([dedupKey, event]) => {
        const payload = event.payload as { summary: string; severity: string };
        return { title: payload.summary, dedupKey, severity: payload.severity };
      }),
    requestCount: () => fake.requests.length,
    secret: ROUTING_KEY,
    close: () => fake.stop(),
  };
});

describe('PagerDuty pager: what reaches PagerDuty', () => {
  it('one trigger event to /v2/enqueue with the routing key in the body, as the Events API v2 takes it', async () => {
    const fake = new FakePagerDuty([ROUTING_KEY]);
    const apiUrl = await fake.start();
    try {
      await new PagerDutyPager({ connection: 'connections/pd', routingKey: ROUTING_KEY, apiUrl }).createIncident({ title: 'Disk full', severity: 'warning', source: 'db-1', details: 'at 99%' });
      expect(fake.requests).toHaveLength(1);
      expect(fake.requests[0]).toMatchObject({ method: 'POST', path: '/v2/enqueue', headers: expect.objectContaining({ 'content-type': 'application/json' }) });
      expect(JSON.parse(fake.requests[0].body)).toEqual({
        routing_key: ROUTING_KEY,
        event_action: 'trigger',
        payload: { summary: 'Disk full', source: 'db-1', severity: 'warning', timestamp: expect.any(String), custom_details: { details: 'at 99%' } },
        client: 'svc',
      });
      expect(fake.requests[0].headers.authorization).toBeUndefined();
    } finally {
      await fake.stop();
    }
  });
});
