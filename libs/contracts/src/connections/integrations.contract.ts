/**
 * The integration helpers that change connections (spec part 1, "Integration helper endpoints"):
 * the three OAuth starts (one shape for all: the spec shows StartCodehostOAuth's body), the OAuth
 * callback they lead back to, and the pager and incident-manager webhook registrations.
 */
import 'reflect-metadata';
import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

/** StartCodehostOAuth's body (spec), also StartChatOAuth's and StartTrackerOAuth's. */
export class StartOAuthRequest {
  /** `connections/{id}` to re-authorize (or widen the scope of); omit to create a connection. */
  @IsOptional() @IsString() @MaxLength(256) connectionName?: string;
  /** Relative UI path starting with `/` the callback sends the browser back to; default `/integrations/connections`. */
  @IsOptional() @IsString() @MaxLength(512) returnPath?: string;
}

export class StartOAuthResponse {
  /** Where to send the browser: the provider's authorize endpoint with client_id, redirect_uri, scope, state and a PKCE challenge. */
  @IsString() authorizeUrl!: string;
  /** The signed state the URL carries (also in the URL); valid until expiresAt, once. */
  @IsString() state!: string;
  /** RFC 3339. */
  @IsString() expiresAt!: string;
}

/** `GET /v1/oauth/callback` answers 303 to the return path, with this body. */
export class OAuthCallbackResponse {
  /** The connection the token was sealed on (`connections/{id}`). */
  @IsString() connection!: string;
  /** `{return_path}?connection=connections/{id}`, as in Location. */
  @IsString() returnPath!: string;
}

export class RegisterPagerWebhookRequest {
  /** `connections/{id}` of an existing pager connection. */
  @IsString() @IsNotEmpty() @MaxLength(256) connectionName!: string;
}

/** `POST /v1/connections/{connection}:registerIncidentmgrWebhook`: the path names the connection (`{id}` or `connections/{id}`). */
export class RegisterIncidentMgrWebhookRequest {
  @IsString() @IsNotEmpty() @MaxLength(256) connection!: string;
}

/** Spec part 1, "Pager webhook registration result"; RegisterIncidentMgrWebhook answers the same. */
export class WebhookRegistrationResponse {
  /** `{integrations_url}/v1/webhooks/{pager|incidentmgr}/{token}`. */
  @IsString() webhookUrl!: string;
  /** Answered once: only its SHA-256 is kept. */
  @IsString() webhookToken!: string;
}

/** What an inbound webhook delivery answers once verified. */
export class WebhookDeliveryResponse {
  @IsString() connection!: string;
  /** The deliveries' event types recorded (PagerDuty v3: `event.event_type`). */
  @IsString() eventType!: string;
}
