/**
 * RegisterPagerWebhook (`POST /v1/pager-connections:registerWebhook`; a bearer JWT only) and
 * RegisterIncidentMgrWebhook (`POST /v1/connections/{connection}:registerIncidentmgrWebhook`), both
 * INTEGRATIONS_WRITE. Each mints a random token (32 bytes, base64url), records only its SHA-256 on
 * the connection (ConnectionWebhookRegistered), and answers the URL the platform should call,
 * `{integrations_url}/v1/webhooks/{pager|incidentmgr}/{token}`, with the token, once. Registering
 * again rotates: the new token and the one before it stay valid (WEBHOOK_TOKENS_KEPT), so the
 * platform can be moved to the new URL without dropping deliveries; older ones stop working.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { DecideAndAppend } from '@svc/application/commands/decide-and-append';
import {
  RegisterIncidentMgrWebhookRequest,
  RegisterPagerWebhookRequest,
  WebhookRegistrationResponse,
} from '@svc/contracts/connections/integrations.contract';
import { type ConnectionCommand, connectionDecider, type ConnectionEvent, type ConnectionState, type WebhookKind } from '@svc/domain/connections/connection.decider';
import { DomainError, failedPrecondition, invalid } from '@svc/domain/shared/domain-error';
import type { IntegrationsConfig } from '@svc/infrastructure/config/integrations-config';
import { resolveEnv } from '@svc/infrastructure/config/secrets';
import { actorOf, type Principal } from '../auth/principal';
import { MethodRegistry } from '../http/method-registry';
import { defineMethod } from '../resource-kit/method-builders';
import { INTEGRATIONS } from './integrations.providers';
import { CONNECTION_NAME, INTEGRATION_WRITES } from './oauth-helpers';

const TYPES: Record<WebhookKind, string> = { pager: 'CONNECTION_TYPE_PAGER', incidentmgr: 'CONNECTION_TYPE_INCIDENTMGR' };

/** The SHA-256 (hex) a webhook token is recorded and looked up by: the token is 256 random bits, so no slow hash is needed. */
export const webhookTokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

@Injectable()
export class WebhookHelpers implements OnModuleInit {
  constructor(
    private readonly registry: MethodRegistry,
    private readonly bus: CommandBus,
    @Inject(INTEGRATIONS) private readonly integrations: IntegrationsConfig,
  ) {}

  onModuleInit(): void {
    this.registry.register(
      defineMethod(INTEGRATION_WRITES, 'RegisterPagerWebhook', { request: RegisterPagerWebhookRequest, response: WebhookRegistrationResponse }, 'write', ({ principal, request }) => {
        // The integrations server takes its deployment-scoped identity from the JWT's claims (spec, "Authentication").
        if (principal.authenticator !== 'bearer') {
          throw new DomainError('UNAUTHENTICATED', 'RegisterPagerWebhook accepts only an Authorization: Bearer JWT of the identity provider', 'BEARER_REQUIRED');
        }
        return this.register('pager', principal, request.connectionName);
      }),
      defineMethod(
        INTEGRATION_WRITES,
        'RegisterIncidentMgrWebhook',
        { request: RegisterIncidentMgrWebhookRequest, response: WebhookRegistrationResponse },
        'write',
        ({ principal, request }) => this.register('incidentmgr', principal, request.connection.startsWith('connections/') ? request.connection : `connections/${request.connection}`),
      ),
    );
  }

  private async register(kind: WebhookKind, principal: Principal, name: string): Promise<WebhookRegistrationResponse> {
    if (!CONNECTION_NAME.test(name)) throw invalid("the connection must be named 'connections/{id}'");
    if (this.integrations.url === '') {
      throw failedPrecondition('no integrations server address is configured (operator configuration: integrations.url)', 'INTEGRATIONS_URL_NOT_CONFIGURED');
    }
    const token = randomBytes(32).toString('base64url');
    const actor = actorOf(principal);
    const command: ConnectionCommand = { type: 'RegisterWebhook', actor, name, kind, connectionType: TYPES[kind], tokenHash: webhookTokenHash(token) };
    // NOT_FOUND for a connection outside the caller's organization: the stream is the caller's organization's.
    await this.bus.execute(
      new DecideAndAppend<ConnectionState, ConnectionCommand, ConnectionEvent>(
        { decider: connectionDecider, streamId: `connection-${principal.org}:${name}`, command, context: { actor } },
        'connections',
      ),
    );
    return { webhookUrl: `${resolveEnv(this.integrations.url)}/v1/webhooks/${kind}/${token}`, webhookToken: token };
  }
}
