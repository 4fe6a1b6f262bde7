/**
 * What every incident-manager adapter must do (incidentmgr.port.ts), against a vendor it can steer:
 * declare an incident once per idempotency key, read it back, answer the vendor's refusals with the
 * port's codes (never with the API key), and verify and parse the vendor's webhook deliveries.
 */
import type { IncidentEvent, IncidentManager, IncidentWebhookCheck } from '@svc/infrastructure/integrations/incidentmgr/incidentmgr.port';

export interface IncidentVendor {
  manager(options?: { apiKey?: string }): IncidentManager;
  apiKey: string;
  requestCount(): number;
  set(state: { rateLimited?: boolean; requireSeverity?: boolean }): void;
  /** A delivery about an incident being declared, signed under `secret` at `at` (seconds). */
  delivery(secret: string, at?: number): { headers: Record<string, string>; raw: string };
  /** A signing secret as the vendor issues one. */
  secret: string;
  verify(secret: string, headers: Record<string, string | undefined>, raw: string): IncidentWebhookCheck;
  parse(headers: Record<string, string | undefined>, body: Record<string, unknown>): IncidentEvent;
  close(): Promise<void>;
}

export function describeIncidentManagerContract(name: string, setup: () => Promise<IncidentVendor>): void {
  describe(`incident manager contract: ${name}`, () => {
    let vendor: IncidentVendor;
    beforeAll(async () => {
      vendor = await setup();
    });
    afterAll(() => vendor.close());

    it('declares an incident and reads it back', async () => {
      const created = await vendor.manager().createIncident({ name: 'Checkout down', summary: 'All payments fail', idempotencyKey: 'svc-1' });
      expect(created).toEqual({
        id: expect.any(String),
        reference: expect.stringMatching(/^INC-\d+$/),
        name: 'Checkout down',
        summary: 'All payments fail',
        url: expect.stringMatching(/^https:\/\//),
        status: 'triage',
        severity: expect.any(String),
        createTime: expect.any(String),
      });
      expect(await vendor.manager().getIncident(created.id)).toEqual(created);
    });

    it('declares one incident per idempotency key', async () => {
      const a = await vendor.manager().createIncident({ name: 'Queue backlog', idempotencyKey: 'svc-2' });
      const b = await vendor.manager().createIncident({ name: 'Queue backlog', idempotencyKey: 'svc-2' });
      expect(b.id).toBe(a.id);
    });

    it('checks its input before any call, and an unknown incident is NOT_FOUND', async () => {
      const calls = vendor.requestCount();
      await expect(vendor.manager().createIncident({ name: '', idempotencyKey: 'k' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      await expect(vendor.manager().getIncident('../admin')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(vendor.requestCount()).toBe(calls);
      await expect(vendor.manager().getIncident('01HZNOTTHERE')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });

    it("answers the vendor's validation, refused credentials and rate limit with the port's codes, never the key", async () => {
      vendor.set({ requireSeverity: true });
      await expect(vendor.manager().createIncident({ name: 'x', idempotencyKey: 'svc-3' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/severity_id: A severity is required/) });
      vendor.set({ requireSeverity: false, rateLimited: true });
      await expect(vendor.manager().createIncident({ name: 'x', idempotencyKey: 'svc-4' })).rejects.toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(/retry after/) });
      vendor.set({ rateLimited: false });
      const wrong = 'inc_wrong_api_key_value';
      const error = (await vendor
        .manager({ apiKey: wrong })
        .getIncident('01HZ')
        .catch((e: unknown) => e)) as Error & { code: string };
      expect(error.code).toBe('PERMISSION_DENIED');
      expect(JSON.stringify({ message: error.message, stack: error.stack })).not.toContain(wrong);
    });

    it('verifies deliveries: the right secret, in time, over the exact body', () => {
      const { headers, raw } = vendor.delivery(vendor.secret);
      expect(vendor.verify(vendor.secret, headers, raw)).toBe('ok');
      expect(vendor.verify(vendor.secret, headers, `${raw} `)).toBe('mismatch');
      expect(vendor.verify('whsec_' + Buffer.from('another key').toString('base64'), headers, raw)).toBe('mismatch');
      const old = vendor.delivery(vendor.secret, Math.floor(Date.now() / 1000) - 3600);
      expect(vendor.verify(vendor.secret, old.headers, old.raw)).toBe('stale');
      expect(vendor.verify(vendor.secret, {}, raw)).toBe('missing');
    });

    it('parses a delivery into its type and incident', () => {
      const { headers, raw } = vendor.delivery(vendor.secret);
      expect(vendor.parse(headers, JSON.parse(raw) as Record<string, unknown>)).toEqual({
        delivery: expect.any(String),
        type: expect.stringContaining('incident_created'),
        incident: { id: expect.any(String), reference: expect.stringMatching(/^INC-/), name: expect.any(String), url: expect.stringMatching(/^https:\/\//), status: expect.any(String) },
      });
    });
  });
}
