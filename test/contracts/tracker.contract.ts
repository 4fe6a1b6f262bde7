/**
 * What every tracker adapter must do (tracker.port.ts), against a vendor it can steer: open a ticket in
 * the connection's project, check its input before any call, answer the vendor's refusals with the
 * port's codes (never with the token), and verify and parse the vendor's webhook deliveries.
 */
import type { Tracker, TrackerWebhooks, WebhookHeaders } from '@svc/infrastructure/integrations/tracker/tracker.port';

export interface TrackerVendor {
  /** A tracker on a project the vendor has, with good credentials, or with `token`/`project`. */
  tracker(options?: { token?: string; project?: string }): Tracker;
  project: string;
  token: string;
  /** Titles of the tickets the vendor holds for the project. */
  tickets(): string[];
  requestCount(): number;
  /** Switches the project's tickets off, or the vendor's rate limit to spent. */
  set(state: { disabled?: boolean; rateLimited?: boolean }): void;
  webhooks: TrackerWebhooks;
  /** A delivery about a ticket being opened, as the vendor signs it under `secret`. */
  delivery(secret: string): { headers: WebhookHeaders; raw: string };
  close(): Promise<void>;
}

export function describeTrackerContract(name: string, setup: () => Promise<TrackerVendor>): void {
  describe(`tracker contract: ${name}`, () => {
    let vendor: TrackerVendor;
    beforeAll(async () => {
      vendor = await setup();
    });
    afterAll(() => vendor.close());

    it('opens a ticket in the project and answers its key and URL', async () => {
      const ticket = await vendor.tracker().createTicket({ title: 'Checkout latency regression', body: 'p99 doubled after 4.2', labels: ['incident'] });
      expect(ticket).toEqual({ id: expect.any(String), key: expect.stringMatching(/^#\d+$|^[A-Z]+-\d+$/), url: expect.stringMatching(/^https:\/\//), title: 'Checkout latency regression', state: 'open' });
      expect(vendor.tickets()).toContain('Checkout latency regression');
    });

    it('checks its input before any call', async () => {
      const calls = vendor.requestCount();
      await expect(vendor.tracker().createTicket({ title: '' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      await expect(vendor.tracker().createTicket({ title: 'x'.repeat(257) })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      await expect(vendor.tracker().createTicket({ title: 'x', labels: Array.from({ length: 21 }, (_, i) => `l${i}`) })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(vendor.requestCount()).toBe(calls);
    });

    it("answers refused credentials as PERMISSION_DENIED, and the error never holds the token", async () => {
      const wrong = 'ghp_wrong_tracker_token_value';
      const error = (await vendor
        .tracker({ token: wrong })
        .createTicket({ title: 'x' })
        .catch((e: unknown) => e)) as Error & { code: string };
      expect(error.code).toBe('PERMISSION_DENIED');
      expect(JSON.stringify({ message: error.message, stack: error.stack })).not.toContain(wrong);
    });

    it('answers an unknown project NOT_FOUND, tickets switched off FAILED_PRECONDITION, a spent rate limit UNAVAILABLE', async () => {
      await expect(vendor.tracker({ project: 'acme/nope' }).createTicket({ title: 'x' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
      vendor.set({ disabled: true });
      await expect(vendor.tracker().createTicket({ title: 'x' })).rejects.toMatchObject({ code: 'FAILED_PRECONDITION', message: expect.stringMatching(/disabled/) });
      vendor.set({ disabled: false, rateLimited: true });
      await expect(vendor.tracker().createTicket({ title: 'x' })).rejects.toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(/rate limit/) });
      vendor.set({ rateLimited: false });
    });

    it('verifies a delivery over its raw body: the right secret only, a changed body or no signature refused', () => {
      const { headers, raw } = vendor.delivery('whsec-right');
      expect(vendor.webhooks.verify('whsec-right', headers, raw)).toBe('ok');
      expect(vendor.webhooks.verify('whsec-other', headers, raw)).toBe('mismatch');
      expect(vendor.webhooks.verify('whsec-right', headers, raw.replace('opened', 'closed'))).toBe('mismatch');
      expect(vendor.webhooks.verify('whsec-right', {}, raw)).toBe('missing');
    });

    it('parses a delivery into the ticket, the project and what happened', () => {
      const { headers, raw } = vendor.delivery('s');
      const body = JSON.parse(raw) as Record<string, unknown>;
      expect(vendor.webhooks.projectOf(body)).toBe(vendor.project);
      expect(vendor.webhooks.parse(headers, body)).toEqual({
        delivery: expect.any(String),
        kind: expect.any(String),
        action: 'opened',
        project: vendor.project,
        ticket: { id: expect.any(String), key: expect.any(String), url: expect.stringMatching(/^https:\/\//), title: expect.any(String), state: 'open' },
        actor: expect.any(String),
      });
    });
  });
}
