import { Auth0IdentityProvider } from '@svc/infrastructure/integrations/idp/auth0.idp';
import { FakeAuth0 } from '../support/fake-auth0';
import { describeIdentityProviderContract } from './idp.contract';

const CLIENT = { id: 'm2m-client-id', secret: 'm2m-client-secret-0123456789' };
const ORG = 'org_acme0001';

describeIdentityProviderContract('Auth0 Management API (the auth0 client against a local server answering as Auth0 documents)', async () => {
  const fake = new FakeAuth0(CLIENT, [ORG]);
  const apiUrl = await fake.start();
  return {
    idp: (options = {}) =>
      new Auth0IdentityProvider({
        connection: 'connections/auth0',
        domain: 'acme.eu.auth0.com',
        clientId: CLIENT.id,
        clientSecret: options.clientSecret ?? CLIENT.secret,
        organizationId: options.organizationId ?? ORG,
        applicationClientId: 'app-client-id',
        apiUrl,
      }),
    clientSecret: CLIENT.secret,
    invitations: () => fake.invitations.map((i) => ({ email: (i.invitee as { email: string }).email, inviter: (i.inviter as { name: string }).name })),
    requestCount: () => fake.requests.length,
    set: ({ rateLimited }) => {
      if (rateLimited !== undefined) fake.rateLimited = rateLimited;
    },
    close: () => fake.stop(),
  };
});

describe('Auth0 identity provider: what reaches the tenant', () => {
  it('gets a Management API token by client credentials for the tenant audience, then invites with it', async () => {
    const fake = new FakeAuth0(CLIENT, [ORG]);
    const apiUrl = await fake.start();
    try {
      const idp = new Auth0IdentityProvider({ connection: 'connections/auth0', domain: 'acme.eu.auth0.com', clientId: CLIENT.id, clientSecret: CLIENT.secret, organizationId: ORG, applicationClientId: 'app', connectionId: 'con_1', apiUrl });
      await idp.createOrganizationInvitation({ email: 'erin@acme.example', inviterName: 'users/alice' });
      const [token, invite] = fake.requests;
      expect(token.path).toBe('/oauth/token');
      expect(Object.fromEntries(new URLSearchParams(token.body))).toEqual({ grant_type: 'client_credentials', client_id: CLIENT.id, client_secret: CLIENT.secret, audience: 'https://acme.eu.auth0.com/api/v2/' });
      expect(invite.path).toBe(`/api/v2/organizations/${ORG}/invitations`);
      expect(invite.headers.authorization).toMatch(/^Bearer /);
      expect(JSON.parse(invite.body)).toEqual({ inviter: { name: 'users/alice' }, invitee: { email: 'erin@acme.example' }, client_id: 'app', connection_id: 'con_1' });
    } finally {
      await fake.stop();
    }
  });
});
