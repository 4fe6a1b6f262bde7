/**
 * HandleTrackerEvent (`POST /v1/tracker-connections:handleEvent`): tracker webhooks forwarded by the
 * integrations server with machine credentials, as HandleChatEvent. The delivery names its project
 * (GitHub: `repository.full_name`); the tracker connections of that project are found through their
 * index, in any organization (at most MAX_CANDIDATE_CONNECTIONS), and the signature is checked over the
 * raw body with each one's `webhook_secret`. A delivery no connection verifies is UNAUTHENTICATED.
 * A verified delivery is parsed, recorded once per verifying connection (`TrackerDeliveryRecorded`
 * in a stream named after the connection and the delivery, so a retry or a replay appends nothing),
 * and answered with those connections. Nothing in the spec acts on tracker events yet (issues cannot
 * link tickets) (docs/decisions.md, "Pager, tracker, incident manager and identity provider ports").
 */
import { Controller, HttpCode, Inject, Logger, Module, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { deliveryKeyOf, recordTrackerDelivery } from '@svc/application/areas/connections/record-tracker-delivery';
import { trackerConnectionsOfProject } from '@svc/application/areas/connections/tracker-connections';
import { HandleTrackerEventResponse } from '@svc/contracts/connections/integration-ports.contract';
import { DomainError, invalid } from '@svc/domain/shared/domain-error';
import { trackerWebhooksOf } from '@svc/infrastructure/integrations/tracker/tracker-of';
import { githubWebhooks } from '@svc/infrastructure/integrations/tracker/github-webhooks';
import type { WebhookCheck, WebhookHeaders } from '@svc/infrastructure/integrations/tracker/tracker.port';
import { READ_STORE } from '@svc/infrastructure/nest/tokens';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { AGENT_SERVICE_IDENTITY, MachineOnly } from '../auth/principal';
import { ConnectionCredentials, ConnectionsModule } from '../connections/connections.module';
import { signedBody, type WithRawBody } from '../http/fastify';
import { Answers } from '../openapi/route-facts';

/** Most tracker connections one delivery is checked against (ours): bounds the HMACs one request costs. */
export const MAX_TRACKER_CANDIDATES = 100;

const REFUSALS: Record<Exclude<WebhookCheck, 'ok'>, string> = {
  missing: 'the request carries no tracker signature (X-Hub-Signature-256 is required)',
  mismatch: 'the tracker signature does not match any tracker connection of the project',
};

@Controller()
export class TrackerEventsController {
  private readonly logger = new Logger('tracker');

  constructor(
    private readonly credentials: ConnectionCredentials,
    private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
  ) {}

  // `::` is find-my-way's literal colon: the path is `/v1/tracker-connections:handleEvent`.
  @Post('v1/tracker-connections::handleEvent')
  @HttpCode(200)
  @MachineOnly()
  @Answers(HandleTrackerEventResponse)
  async handleEvent(@Req() req: WithRawBody): Promise<HandleTrackerEventResponse> {
    const { raw, body } = signedBody(req, 'tracker event');
    const headers = headersOf(req);
    // GitHub Issues is the one tracker product today: the project is read the way it names it.
    const project = githubWebhooks.projectOf(body);
    if (project === undefined) throw invalid('the tracker event names no project (repository.full_name)');
    const candidates = await trackerConnectionsOfProject(this.reads, project, MAX_TRACKER_CANDIDATES);
    const verified: Array<{ org: string; name: string }> = [];
    let refusal: Exclude<WebhookCheck, 'ok'> = 'mismatch';
    for (const doc of candidates) {
      const org = String(doc._org);
      const name = String(doc.name);
      const secret = await this.webhookSecret(org, name);
      if (secret === undefined) continue;
      const check = githubWebhooks.verify(secret, headers, raw);
      if (check === 'ok') verified.push({ org, name });
      else refusal = check;
    }
    if (verified.length === 0) throw new DomainError('UNAUTHENTICATED', REFUSALS[refusal]);
    const event = githubWebhooks.parse(headers, body);
    const delivery = { ...event, delivery: deliveryKeyOf(event.delivery, raw) };
    const now = new Date().toISOString();
    const verifiedBy: HandleTrackerEventResponse['verifiedBy'] = [];
    // One command per organization's connection: each is its own stream and its own append.
    for (const { org, name } of verified) {
      const actor = { org, actor: AGENT_SERVICE_IDENTITY, subject: AGENT_SERVICE_IDENTITY, permissions: [], now };
      const recorded = await recordTrackerDelivery(this.commands, actor, { ...delivery, connection: name });
      verifiedBy.push({ organization: org, connection: name, recorded });
    }
    this.logger.log(`tracker event ${event.kind}.${event.action} of ${event.project} (delivery ${delivery.delivery}) verified by ${verified.length} connection(s)`);
    return { event: delivery, verifiedBy };
  }

  /** The connection's webhook secret in clear, or undefined when it has none or it cannot be opened here. */
  private async webhookSecret(org: string, name: string): Promise<string | undefined> {
    try {
      const connection = await this.credentials.resolve(org, name);
      return trackerWebhooksOf({ ...connection, name }).secret;
    } catch (error) {
      if (error instanceof DomainError) return undefined;
      throw error;
    }
  }
}

function headersOf(req: WithRawBody): WebhookHeaders {
  const headers: WebhookHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers[name.toLowerCase()] = value;
  return headers;
}

@Module({ imports: [ConnectionsModule], controllers: [TrackerEventsController] })
export class TrackerModule {}
