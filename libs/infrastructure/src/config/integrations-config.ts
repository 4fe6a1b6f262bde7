/**
 * The `integrations:` section of the operator configuration: the address of the integrations server
 * (`{integrations_url}` of the webhook URLs RegisterPagerWebhook and RegisterIncidentMgrWebhook
 * mint) and the OAuth apps the Start*OAuth helpers send people to, one per kind of connection.
 * Operator-wide: one OAuth app per provider serves every organization, as a SaaS product registers
 * one GitHub app. The client secret may be `${env:NAME}`; it is resolved when used, never stored.
 */
import { z } from 'zod';
import { addIssue, list, mapping, nonEmptyString } from './config-schema';

/** The connection kinds an OAuth start may create or re-authorize. */
export const OAUTH_KINDS = ['codehost', 'chat', 'tracker'] as const;
export type OAuthKind = (typeof OAUTH_KINDS)[number];

/** One OAuth app (an authorization server and the client registered with it). */
export interface OAuthProviderConfig {
  /** Written as `details.<kind>.provider` of a connection the callback creates (`github`, `slack`, `jira`). */
  provider: string;
  /** OpenID Connect discovery (`{issuer}/.well-known/openid-configuration`), or the two endpoints below. */
  issuer?: string;
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
  clientId: string;
  /** As written (`${env:NAME}` resolved at use). */
  clientSecret: string;
  scopes: string[];
  /** Other details of a connection the callback creates (`api_url` of a GitHub Enterprise host), kept as written. */
  details: Record<string, unknown>;
  /** The display name of a connection the callback creates (default: the provider). */
  displayName: string;
}

export interface IntegrationsConfig {
  /** `{integrations_url}`: where the integrations server receives webhooks (no trailing slash). */
  url: string;
  oauth: {
    /** The callback registered with every OAuth app: this service's `/v1/oauth/callback`. */
    redirectUri: string;
    /** How long a `state` stays valid (default 600 s). */
    stateTtlSeconds: number;
    providers: Partial<Record<OAuthKind, OAuthProviderConfig>>;
  };
}

export const NO_INTEGRATIONS: IntegrationsConfig = { url: '', oauth: { redirectUri: '', stateTtlSeconds: 600, providers: {} } };

const absoluteUrl = (what: string) =>
  nonEmptyString().refine((value) => {
    if (/^\$\{env:[A-Za-z_][A-Za-z0-9_]*\}$/.test(value)) return true;
    try {
      return ['http:', 'https:'].includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, `must be an absolute http(s) URL (${what})`);

/** The `integrations:` section's schema. */
export function integrationsSection() {
  const provider = mapping({
    provider: nonEmptyString().meta({ description: 'details.<kind>.provider of a connection the callback creates (github, slack, jira, ...)' }),
    issuer: absoluteUrl('OpenID Connect discovery').optional(),
    authorization_endpoint: absoluteUrl('the authorize endpoint').optional(),
    token_endpoint: absoluteUrl('the token endpoint').optional(),
    // Multi-word keys are optional to the mapping (their lowerCamelCase alias may give them); required below.
    client_id: nonEmptyString().optional().meta({ description: 'required' }),
    client_secret: nonEmptyString().optional().meta({ description: 'required: the OAuth client secret; write ${env:NAME}' }),
    scopes: list(nonEmptyString()).meta({ description: 'scopes asked for (space-joined in the authorize URL)' }),
    details: z.record(z.string(), z.unknown(), { error: 'must be a mapping' }).optional().meta({ description: 'other details of a connection the callback creates' }),
    display_name: nonEmptyString().optional().meta({ description: 'display name of a connection the callback creates (default: the provider)' }),
  }).transform((p, ctx): OAuthProviderConfig => {
    const endpoints = p.authorization_endpoint !== undefined && p.token_endpoint !== undefined;
    if (p.issuer === undefined && !endpoints) addIssue(ctx, 'needs issuer (OpenID Connect discovery) or both authorization_endpoint and token_endpoint', [], true);
    if (p.client_id === undefined) addIssue(ctx, 'client_id is required', [], true);
    if (p.client_secret === undefined) addIssue(ctx, 'client_secret is required', [], true);
    return {
      provider: p.provider,
      issuer: p.issuer,
      authorizationEndpoint: p.authorization_endpoint,
      tokenEndpoint: p.token_endpoint,
      clientId: p.client_id ?? '',
      clientSecret: p.client_secret ?? '',
      scopes: p.scopes ?? [],
      details: p.details ?? {},
      displayName: p.display_name ?? p.provider,
    };
  });
  const oauth = mapping({
    redirect_uri: absoluteUrl('this service\'s /v1/oauth/callback, as registered with each OAuth app').optional().meta({ description: 'required: this service\'s /v1/oauth/callback, as registered with each OAuth app' }),
    state_ttl_seconds: z.number({ error: 'must be a number' }).int().min(60).max(3600).optional().meta({ description: 'how long a state stays valid (default 600)' }),
    codehost: provider.optional().meta({ description: 'StartCodehostOAuth (the token lands in details.codehost.token)' }),
    chat: provider.optional().meta({ description: 'StartChatOAuth (the token lands in details.chat.bot_token)' }),
    tracker: provider.optional().meta({ description: 'StartTrackerOAuth (the token lands in details.tracker.token)' }),
  }).superRefine((o, ctx) => {
    if (o.redirect_uri === undefined) addIssue(ctx, 'redirect_uri is required', [], true);
  });
  return mapping({
    url: absoluteUrl('{integrations_url}').optional().meta({ description: '{integrations_url}: the address webhook URLs are minted under' }),
    oauth: oauth.optional(),
  }).transform(
    (i): IntegrationsConfig => ({
      url: (i.url ?? '').replace(/\/+$/, ''),
      oauth: {
        redirectUri: i.oauth?.redirect_uri ?? '',
        stateTtlSeconds: i.oauth?.state_ttl_seconds ?? 600,
        providers: Object.fromEntries(OAUTH_KINDS.flatMap((kind) => (i.oauth?.[kind] ? [[kind, i.oauth[kind]]] : []))),
      },
    }),
  );
}
