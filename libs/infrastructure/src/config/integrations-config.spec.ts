import { ConfigError, parseOperatorConfig } from './operator-config';

const problemsOf = (raw: unknown): string[] => {
  try {
    parseOperatorConfig(raw, {});
  } catch (error) {
    if (error instanceof ConfigError) return error.message.split('\n').slice(1).map((l) => l.trim());
    throw error;
  }
  return [];
};

describe('operator configuration: integrations', () => {
  it('reads {integrations_url} and one OAuth app per kind, defaults filled in', () => {
    const config = parseOperatorConfig(
      {
        integrations: {
          url: 'https://hooks.example/',
          oauth: {
            redirect_uri: 'https://svc.example/v1/oauth/callback',
            codehost: { provider: 'github', authorization_endpoint: 'https://github.com/login/oauth/authorize', token_endpoint: 'https://github.com/login/oauth/access_token', client_id: 'Iv1', client_secret: '${env:GH_SECRET}', scopes: ['repo'], details: { api_url: 'https://api.github.com' } },
            chat: { provider: 'slack', issuer: 'https://slack.com', clientId: 'c', client_secret: 's' },
          },
        },
      },
      {},
    );
    expect(config.integrations).toEqual({
      url: 'https://hooks.example',
      oauth: {
        redirectUri: 'https://svc.example/v1/oauth/callback',
        stateTtlSeconds: 600,
        providers: {
          codehost: {
            provider: 'github',
            issuer: undefined,
            authorizationEndpoint: 'https://github.com/login/oauth/authorize',
            tokenEndpoint: 'https://github.com/login/oauth/access_token',
            clientId: 'Iv1',
            clientSecret: '${env:GH_SECRET}',
            scopes: ['repo'],
            details: { api_url: 'https://api.github.com' },
            displayName: 'github',
          },
          chat: expect.objectContaining({ provider: 'slack', issuer: 'https://slack.com', clientId: 'c', scopes: [], details: {} }),
        },
      },
    });
  });

  it('names what is missing or wrong', () => {
    expect(
      problemsOf({ integrations: { url: 'ftp://x', oauth: { redirect_uri: 'https://svc.example/cb', tracker: { provider: 'jira', client_id: 'c', client_secret: 's' }, pager: {} } } }),
    ).toEqual([
      'integrations.url must be an absolute http(s) URL ({integrations_url})',
      'integrations.oauth.tracker: needs issuer (OpenID Connect discovery) or both authorization_endpoint and token_endpoint',
      expect.stringMatching(/^integrations\.oauth\.pager is not a known field/),
    ]);
  });
});
