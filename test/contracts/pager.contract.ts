/**
 * What every pager adapter must do (pager.port.ts), against a vendor it can steer: open an incident,
 * keep one incident per dedup key, check its input before any call, and answer the vendor's refusals,
 * throttling and absence with the port's codes, never with the routing key.
 */
import type { Pager } from '@svc/infrastructure/integrations/pager/pager.port';

export interface PagerVendor {
  /** A pager on a routing key the vendor knows, or on `routingKey`. */
  pager(routingKey?: string): Pager;
  /** A pager on a vendor that is not there. */
  unreachable(): Pager;
  throttle(on: boolean): void;
  /** The incidents open, as the vendor recorded them: title and dedup key. */
  open(): Array<{ title: string; dedupKey: string; severity: string }>;
  requestCount(): number;
  secret: string;
  close(): Promise<void>;
}

export function describePagerContract(name: string, setup: () => Promise<PagerVendor>): void {
  describe(`pager contract: ${name}`, () => {
    let vendor: PagerVendor;
    beforeAll(async () => {
      vendor = await setup();
    });
    afterAll(() => vendor.close());

    it('opens an incident and answers its dedup key', async () => {
      const incident = await vendor.pager().createIncident({ title: 'Checkout error rate above 5%', severity: 'critical', source: 'svc', details: 'p99 8s' });
      expect(incident).toEqual({ dedupKey: expect.any(String), message: 'Event processed' });
      expect(vendor.open()).toContainEqual({ title: 'Checkout error rate above 5%', dedupKey: incident.dedupKey, severity: 'critical' });
    });

    it('keeps one incident per dedup key, however often it is sent', async () => {
      const before = vendor.open().length;
      const first = await vendor.pager().createIncident({ title: 'Disk full', severity: 'error', source: 'db-1', dedupKey: 'db-1/disk' });
      const second = await vendor.pager().createIncident({ title: 'Disk full', severity: 'error', source: 'db-1', dedupKey: 'db-1/disk' });
      expect(first.dedupKey).toBe('db-1/disk');
      expect(second.dedupKey).toBe('db-1/disk');
      expect(vendor.open().length).toBe(before + 1);
    });

    it('checks its input before any call', async () => {
      const calls = vendor.requestCount();
      await expect(vendor.pager().createIncident({ title: ' ', severity: 'critical', source: 'svc' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      await expect(vendor.pager().createIncident({ title: 'x'.repeat(1025), severity: 'critical', source: 'svc' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      await expect(vendor.pager().createIncident({ title: 'x', severity: 'fatal' as 'critical', source: 'svc' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(vendor.requestCount()).toBe(calls);
    });

    it("answers the vendor's refusal of the routing key as INVALID_ARGUMENT with its reasons, never the key", async () => {
      const wrong = 'f'.repeat(32);
      const error = (await vendor
        .pager(wrong)
        .createIncident({ title: 'x', severity: 'info', source: 'svc' })
        .catch((e: unknown) => e)) as Error & { code: string };
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toMatch(/refused the request: Event object is invalid; Invalid routing key/);
      expect(JSON.stringify({ message: error.message, stack: error.stack })).not.toContain(wrong);
    });

    it('answers throttling and an absent vendor as UNAVAILABLE', async () => {
      vendor.throttle(true);
      try {
        await expect(vendor.pager().createIncident({ title: 'x', severity: 'info', source: 'svc' })).rejects.toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(/rate limiting/) });
      } finally {
        vendor.throttle(false);
      }
      const error = (await vendor
        .unreachable()
        .createIncident({ title: 'x', severity: 'info', source: 'svc' })
        .catch((e: unknown) => e)) as Error & { code: string };
      expect(error.code).toBe('UNAVAILABLE');
      expect(error.message).not.toContain(vendor.secret);
    });
  });
}
