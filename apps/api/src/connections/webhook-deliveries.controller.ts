/**
 * `POST /v1/webhooks/{pager|incidentmgr}/{token}`: where the URLs RegisterPagerWebhook and
 * RegisterIncidentMgrWebhook mint lead. Public: the token finds the connection (by its SHA-256, one
 * lookup by key in any organization, no scan), and the platform's signature over the raw body,
 * under the signing secret the connection holds (`details.pager.signing_secret` or
 * `details.incidentmgr.signing_secret`, supplied through the operator configuration after the
 * registration), proves the sender. Until a signing secret is configured a delivery is refused with
 * FAILED_PRECONDITION saying so. A verified delivery is recorded as WebhookDeliveryReceived, once
 * per platform event id.
 */
import { Controller, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { WEBHOOK_TOKENS, webhookTokenId } from '@svc/application/areas/connections/connections.projection';
import { DecideAndAppend } from '@svc/application/commands/decide-and-append';
import { WebhookDeliveryResponse } from '@svc/contracts/connections/integrations.contract';
import {
  type WebhookDelivery,
  webhookDeliveryDecider,
  type WebhookDeliveryCommand,
  type WebhookDeliveryEvent,
  type WebhookDeliveryState,
} from '@svc/domain/connections/webhook-delivery.decider';
import { DomainError, failedPrecondition, invalid, notFound } from '@svc/domain/shared/domain-error';
import { isPlainObject, type JsonObject } from '@svc/domain/shared/json-path';
import { checkPagerSignature, PAGER_SIGNATURE_HEADER } from '@svc/infrastructure/integrations/pager/webhook-signature';
import { READ_STORE } from '@svc/infrastructure/nest/tokens';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { Public } from '../auth/principal';
import { signedBody, type WithRawBody } from '../http/fastify';
import { Answers } from '../openapi/route-facts';
import { ConnectionCredentials } from './connection-credentials';
import { webhookTokenHash } from './webhook-helpers';

const KINDS = new Set(['pager', 'incidentmgr']);
const TOKEN = /^[A-Za-z0-9_-]{20,128}$/;
const UNKNOWN = 'no webhook is registered at this URL';

@Controller()
export class WebhookDeliveriesController {
  constructor(
    private readonly bus: CommandBus,
    private readonly credentials: ConnectionCredentials,
    @Inject(READ_STORE) private readonly reads: ReadStore,
  ) {}

  @Post('v1/webhooks/:kind/:token')
  @HttpCode(200)
  @Public()
  @Answers(WebhookDeliveryResponse)
  async deliver(@Param('kind') kind: string, @Param('token') token: string, @Req() req: WithRawBody): Promise<WebhookDeliveryResponse> {
    if (!KINDS.has(kind) || !TOKEN.test(token)) throw notFound(UNKNOWN);
    const registered = await this.reads.collection(WEBHOOK_TOKENS).findOne({ _id: webhookTokenId(webhookTokenHash(token)) });
    if (!registered || registered.kind !== kind) throw notFound(UNKNOWN);
    const org = String(registered._org);
    const name = String(registered.connection);
    const { raw, body } = signedBody(req, 'webhook delivery');
    const secrets = await this.signingSecrets(org, name, kind);
    if (secrets.length === 0) {
      throw failedPrecondition(`${name} has no signing secret yet: set details.${kind}.signing_secret on the connection (operator configuration)`, 'WEBHOOK_SIGNING_SECRET_MISSING');
    }
    const header = req.headers[PAGER_SIGNATURE_HEADER];
    const check = checkPagerSignature({ secrets, header: typeof header === 'string' ? header : undefined, body: raw });
    if (check !== 'ok') throw new DomainError('UNAUTHENTICATED', check === 'missing' ? `the delivery carries no v1 signature (X-PagerDuty-Signature)` : 'the delivery\'s signature does not match');
    const delivery = deliveryOf(body, name, kind);
    const actor = { org, actor: name, subject: name, permissions: [], now: new Date().toISOString() };
    await this.bus.execute(
      new DecideAndAppend<WebhookDeliveryState, WebhookDeliveryCommand, WebhookDeliveryEvent>({
        decider: webhookDeliveryDecider,
        streamId: `webhookdelivery-${org}:${name}/deliveries/${encodeURIComponent(delivery.eventId)}`,
        command: { type: 'RecordWebhookDelivery', actor, delivery },
        context: { actor },
      }),
    );
    return { connection: name, eventType: delivery.eventType };
  }

  /** The connection's signing secret(s) in clear (a string, or a list while the platform rotates). */
  private async signingSecrets(org: string, name: string, kind: string): Promise<string[]> {
    const details = (await this.credentials.resolve(org, name)).connectionDetails;
    const section = isPlainObject(details) && isPlainObject(details[kind]) ? details[kind] : {};
    const secret = section.signingSecret;
    const list = Array.isArray(secret) ? secret : [secret];
    return list.filter((s): s is string => typeof s === 'string' && s !== '').slice(0, 4);
  }
}

/** PagerDuty v3's envelope: `{event: {id, event_type, resource_type, occurred_at, ...}}`. */
function deliveryOf(body: JsonObject, connection: string, kind: string): WebhookDelivery {
  const event = isPlainObject(body.event) ? body.event : {};
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  const eventId = text(event.id);
  if (eventId === '') throw invalid('the delivery has no event.id');
  return { connection, kind, eventId, eventType: text(event.event_type), resourceType: text(event.resource_type), occurredAt: text(event.occurred_at) };
}
