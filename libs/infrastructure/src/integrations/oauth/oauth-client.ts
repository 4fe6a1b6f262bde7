/**
 * The OAuth apps of the operator configuration on `openid-client`: the authorize URL of a start,
 * and the code exchange of a callback (authorization code with PKCE S256, the state checked against
 * the one the callback verified). An app is found by OpenID Connect discovery (`issuer`) or by its
 * two endpoints (GitHub, Slack and Jira publish no discovery document). Plain http is allowed only
 * for a loopback host (a local authorization server in tests and development).
 */
import * as client from 'openid-client';
import { DomainError, failedPrecondition } from '@svc/domain/shared/domain-error';
import type { IntegrationsConfig, OAuthKind, OAuthProviderConfig } from '../../config/integrations-config';
import { resolveEnv } from '../../config/secrets';

/** Seconds an authorization server may take to answer discovery or the token request. */
const TIMEOUT_SECONDS = 15;

const isLoopback = (url: string) => {
  const { protocol, hostname } = new URL(url);
  return protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(hostname);
};

export class OAuthApps {
  private readonly configurations = new Map<OAuthKind, Promise<client.Configuration>>();

  constructor(private readonly integrations: IntegrationsConfig) {}

  /** The app of a kind; FAILED_PRECONDITION when the operator configured none. */
  app(kind: OAuthKind): OAuthProviderConfig {
    const app = this.integrations.oauth.providers[kind];
    if (!app || this.integrations.oauth.redirectUri === '') {
      throw failedPrecondition(
        `no OAuth app is configured for ${kind} connections (operator configuration: integrations.oauth.redirect_uri and integrations.oauth.${kind})`,
        'OAUTH_NOT_CONFIGURED',
      );
    }
    return app;
  }

  get redirectUri(): string {
    return resolveEnv(this.integrations.oauth.redirectUri);
  }

  async authorizeUrl(kind: OAuthKind, params: { state: string; codeChallenge: string }): Promise<string> {
    const app = this.app(kind);
    const config = await this.configuration(kind, app);
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri,
      ...(app.scopes.length > 0 ? { scope: app.scopes.join(' ') } : {}),
      state: params.state,
      code_challenge: params.codeChallenge,
      code_challenge_method: 'S256',
    });
    return url.href;
  }

  /**
   * The access token the code is worth. The authorization server's refusal is FAILED_PRECONDITION
   * with its OAuth error code only (its description and body may echo what was sent).
   */
  async exchange(kind: OAuthKind, callback: URLSearchParams, checks: { state: string; codeVerifier: string }): Promise<string> {
    const app = this.app(kind);
    const config = await this.configuration(kind, app);
    const current = new URL(this.redirectUri);
    for (const [key, value] of callback) current.searchParams.set(key, value);
    try {
      const tokens = await client.authorizationCodeGrant(config, current, { expectedState: checks.state, pkceCodeVerifier: checks.codeVerifier });
      if (typeof tokens.access_token !== 'string' || tokens.access_token === '') throw failedPrecondition('the authorization server answered no access token', 'OAUTH_EXCHANGE_FAILED');
      return tokens.access_token;
    } catch (error) {
      if (error instanceof DomainError) throw error;
      const code = error instanceof client.ResponseBodyError ? error.error : error instanceof client.AuthorizationResponseError ? error.error : undefined;
      const safe = typeof code === 'string' && /^[\w.-]{1,64}$/.test(code) ? `: ${code}` : '';
      throw failedPrecondition(`the ${kind} authorization server refused the code exchange${safe}`, 'OAUTH_EXCHANGE_FAILED');
    }
  }

  private configuration(kind: OAuthKind, app: OAuthProviderConfig): Promise<client.Configuration> {
    let found = this.configurations.get(kind);
    if (!found) {
      found = this.build(app);
      // A failed discovery is tried again by the next start, not remembered.
      found.catch(() => this.configurations.delete(kind));
      this.configurations.set(kind, found);
    }
    return found;
  }

  private async build(app: OAuthProviderConfig): Promise<client.Configuration> {
    const secret = resolveEnv(app.clientSecret);
    const auth = client.ClientSecretPost(secret);
    if (app.issuer !== undefined) {
      const issuer = resolveEnv(app.issuer);
      try {
        return await client.discovery(new URL(issuer), app.clientId, undefined, auth, {
          timeout: TIMEOUT_SECONDS,
          execute: isLoopback(issuer) ? [client.allowInsecureRequests] : [],
        });
      } catch {
        throw new DomainError('UNAVAILABLE', `the OAuth issuer ${new URL(issuer).origin} could not be discovered`, 'OAUTH_DISCOVERY_FAILED');
      }
    }
    const authorize = resolveEnv(app.authorizationEndpoint ?? '');
    const token = resolveEnv(app.tokenEndpoint ?? '');
    const config = new client.Configuration({ issuer: new URL(authorize).origin, authorization_endpoint: authorize, token_endpoint: token }, app.clientId, undefined, auth);
    config.timeout = TIMEOUT_SECONDS;
    if (isLoopback(authorize) || isLoopback(token)) client.allowInsecureRequests(config);
    return config;
  }
}
