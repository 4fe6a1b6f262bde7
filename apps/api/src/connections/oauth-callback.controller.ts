/**
 * `GET /v1/oauth/callback`: where every OAuth app of the operator configuration sends the browser
 * back (integrations.oauth.redirect_uri). Public: the signed state is the only credential. The
 * state is verified (signature, expiry), its caller must still be a member holding
 * INTEGRATIONS_WRITE in its organization, and the connection must take it (never used, no newer
 * one used: a dry run of the decider, before the code is exchanged). Then the code is exchanged
 * (PKCE), the token sealed (SecretBox, as the configuration's secrets) and recorded with one
 * ConnectionAuthorized event on the connection, which it creates when the state says so. The answer
 * is a 303 to the state's return path with `connection=connections/{id}`.
 */
import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DecideAndAppend } from '@svc/application/commands/decide-and-append';
import { OAuthCallbackResponse } from '@svc/contracts/connections/integrations.contract';
import { OAUTH_CREDENTIALS } from '@svc/domain/connections/connection-credential';
import { type ConnectionCommand, connectionDecider, type ConnectionEvent, type ConnectionState } from '@svc/domain/connections/connection.decider';
import { DomainError, failedPrecondition, invalid } from '@svc/domain/shared/domain-error';
import type { Actor } from '@svc/domain/shared/decider';
import type { SecretBox } from '@svc/infrastructure/config/secrets';
import { OAuthApps } from '@svc/infrastructure/integrations/oauth/oauth-client';
import { OAuthStates, type VerifiedState } from '@svc/infrastructure/integrations/oauth/oauth-state';
import { CredentialsService } from '../auth/credentials.service';
import { Public } from '../auth/principal';
import { Answers } from '../openapi/route-facts';
import { SEALING_BOX } from './integrations.providers';

/** Longest authorization code read (providers' codes are tens of characters). */
const MAX_CODE_LENGTH = 2048;
const CALLBACK_PARAMS = ['code', 'state', 'iss', 'error'] as const;

@Controller()
export class OAuthCallbackController {
  constructor(
    private readonly bus: CommandBus,
    private readonly apps: OAuthApps,
    private readonly states: OAuthStates,
    private readonly credentials: CredentialsService,
    @Inject(SEALING_BOX) private readonly box: SecretBox,
  ) {}

  @Get('v1/oauth/callback')
  @Public()
  @Answers(OAuthCallbackResponse)
  async callback(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<OAuthCallbackResponse> {
    const params = callbackParams(req.query);
    const state = await this.states.verify(params.get('state') ?? '');
    const providerError = params.get('error');
    if (providerError !== null) {
      const safe = /^[\w.-]{1,64}$/.test(providerError) ? providerError : 'error';
      throw failedPrecondition(`the ${state.kind} provider did not authorize the connection: ${safe}`, 'OAUTH_DENIED');
    }
    const code = params.get('code') ?? '';
    if (code === '' || code.length > MAX_CODE_LENGTH) throw invalid(`code is required (at most ${MAX_CODE_LENGTH} characters)`);
    const actor = await this.actorOf(state);
    const app = this.apps.app(state.kind);
    const name = state.connection !== '' ? state.connection : `connections/${slug(app.provider, state.kind)}-${state.id.slice(0, 8)}`;
    const command = (sealedToken: string): ConnectionCommand => ({
      type: 'AuthorizeConnection',
      actor,
      name,
      create: state.connection === '',
      connectionType: OAUTH_CREDENTIALS[state.kind].connectionType,
      path: OAUTH_CREDENTIALS[state.kind].path,
      sealedToken,
      details: { [state.kind]: { provider: app.provider, ...app.details } },
      displayName: app.displayName,
      stateId: state.id,
      issuedAtMs: state.issuedAtMs,
    });
    const stream = (sealedToken: string, dryRun: boolean) =>
      new DecideAndAppend<ConnectionState, ConnectionCommand, ConnectionEvent>(
        { decider: connectionDecider, streamId: `connection-${state.org}:${name}`, command: command(sealedToken), context: { actor }, dryRun },
        dryRun ? undefined : 'connections',
      );
    // Refused before the provider is asked: a used state, a connection gone or of another type.
    await this.bus.execute(stream(this.box.seal('dry-run'), true));
    const token = await this.apps.exchange(state.kind, params, { state: params.get('state') ?? '', codeVerifier: this.states.codeVerifier(state.id) });
    await this.bus.execute(stream(this.box.seal(token), false));
    const back = `${state.returnPath}${state.returnPath.includes('?') ? '&' : '?'}connection=${encodeURIComponent(name)}`;
    void reply.status(303).header('Location', back).header('Cache-Control', 'no-store');
    return { connection: name, returnPath: back };
  }

  /** The state's caller, who must still be a member of its organization holding INTEGRATIONS_WRITE. */
  private async actorOf(state: VerifiedState): Promise<Actor> {
    const member = await this.credentials.member(state.org, state.subject);
    const permissions = member ? await this.credentials.permissionsOf(state.org, member) : [];
    if (!permissions.includes('INTEGRATIONS_WRITE')) {
      throw new DomainError('PERMISSION_DENIED', 'the caller who started this OAuth flow no longer holds INTEGRATIONS_WRITE in its organization');
    }
    return { org: state.org, actor: state.subject, subject: state.subject, permissions, now: new Date().toISOString() };
  }
}

/** The callback's query: single string values of the parameters it reads, bounded. */
function callbackParams(query: unknown): URLSearchParams {
  const params = new URLSearchParams();
  const given = (query ?? {}) as Record<string, unknown>;
  for (const key of CALLBACK_PARAMS) {
    const value = given[key];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value.length > 4096) throw invalid(`${key} must be one string of at most 4096 characters`);
    params.set(key, value);
  }
  return params;
}

const slug = (provider: string, fallback: string) => {
  const cleaned = provider.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40);
  return /^[a-z0-9]/.test(cleaned) ? cleaned : fallback;
};
