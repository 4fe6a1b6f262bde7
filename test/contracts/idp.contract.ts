/**
 * What every identity-provider adapter must do (idp.port.ts), against a vendor it can steer: invite
 * someone into the connection's organization, check the input before any call, and answer the
 * vendor's refusals with the port's codes, never with the client secret.
 */
import type { IdentityProvider } from '@svc/infrastructure/integrations/idp/idp.port';

export interface IdpVendor {
  idp(options?: { clientSecret?: string; organizationId?: string }): IdentityProvider;
  clientSecret: string;
  /** Invitations the vendor holds: invitee email and inviter name. */
  invitations(): Array<{ email: string; inviter: string }>;
  requestCount(): number;
  set(state: { rateLimited?: boolean }): void;
  close(): Promise<void>;
}

export function describeIdentityProviderContract(name: string, setup: () => Promise<IdpVendor>): void {
  describe(`identity provider contract: ${name}`, () => {
    let vendor: IdpVendor;
    beforeAll(async () => {
      vendor = await setup();
    });
    afterAll(() => vendor.close());

    it('invites someone and answers the invitation link and its expiry', async () => {
      const before = Date.now();
      const invitation = await vendor.idp().createOrganizationInvitation({ email: 'erin@acme.example', inviterName: 'users/alice', ttlSeconds: 3600 });
      expect(invitation).toEqual({ id: expect.any(String), url: expect.stringMatching(/^https:\/\//), email: 'erin@acme.example', createTime: expect.any(String), expireTime: expect.any(String) });
      const expiry = Date.parse(invitation.expireTime);
      expect(expiry).toBeGreaterThanOrEqual(before + 3_599_000);
      expect(expiry).toBeLessThanOrEqual(Date.now() + 3_601_000);
      expect(vendor.invitations()).toContainEqual({ email: 'erin@acme.example', inviter: 'users/alice' });
    });

    it('checks its input before any call', async () => {
      const calls = vendor.requestCount();
      await expect(vendor.idp().createOrganizationInvitation({ email: 'not an email', inviterName: 'a' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      await expect(vendor.idp().createOrganizationInvitation({ email: 'a@b.example', inviterName: 'a', ttlSeconds: 31 * 86_400 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(vendor.requestCount()).toBe(calls);
    });

    it("answers the vendor's own validation as INVALID_ARGUMENT", async () => {
      await expect(vendor.idp().createOrganizationInvitation({ email: 'erin@localhost', inviterName: 'users/alice' })).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringMatching(/invitee\.email/),
      });
    });

    it('answers refused client credentials as PERMISSION_DENIED, and the error never holds the secret', async () => {
      const wrong = 'wrong-client-secret-value-0123';
      const error = (await vendor
        .idp({ clientSecret: wrong })
        .createOrganizationInvitation({ email: 'a@b.example', inviterName: 'a' })
        .catch((e: unknown) => e)) as Error & { code: string };
      expect(error.code).toBe('PERMISSION_DENIED');
      expect(JSON.stringify({ message: error.message, stack: error.stack })).not.toContain(wrong);
    });

    it('answers an organization the vendor does not know FAILED_PRECONDITION, a spent rate limit UNAVAILABLE', async () => {
      await expect(vendor.idp({ organizationId: 'org_nope' }).createOrganizationInvitation({ email: 'a@b.example', inviterName: 'a' })).rejects.toMatchObject({ code: 'FAILED_PRECONDITION' });
      vendor.set({ rateLimited: true });
      try {
        await expect(vendor.idp().createOrganizationInvitation({ email: 'a@b.example', inviterName: 'a' })).rejects.toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(/rate limiting/) });
      } finally {
        vendor.set({ rateLimited: false });
      }
    });
  });
}
