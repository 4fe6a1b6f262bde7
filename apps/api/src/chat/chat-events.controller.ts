/**
 * HandleChatEvent (`POST /v1/chat-connections:handleEvent`): chat platform webhooks forwarded by the
 * integrations server with machine credentials. The platform's signature is verified over the raw
 * body with the signing secret of each chat connection the delivery may belong to (its workspace's,
 * or every chat connection for a URL verification, which names no workspace); a delivery no
 * connection's secret verifies is UNAUTHENTICATED. Then the URL verification challenge is answered,
 * or the event is dispatched to the verified connections' triggers.
 */
import { Controller, HttpCode, Inject, Module, Post, Req } from '@nestjs/common';
import { HandleChatEventResponse } from '@svc/contracts/connections/connections.contract';
import { DomainError, invalid } from '@svc/domain/shared/domain-error';
import { isPlainObject, type JsonObject } from '@svc/domain/shared/json-path';
import { CHAT_CONNECTION_TYPE } from '@svc/domain/triggers/chat-connection';
import { chatConnectionsOfTeam } from '@svc/application/areas/connections/chat-connections';
import { READ_STORE } from '@svc/infrastructure/nest/tokens';
import { checkChatSignature, SIGNATURE_HEADER, TIMESTAMP_HEADER, type SignatureCheck } from '@svc/infrastructure/integrations/chat/signature';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { MachineOnly } from '../auth/principal';
import { ConnectionCredentials, ConnectionsModule } from '../connections/connections.module';
import { signedBody, type WithRawBody } from '../http/fastify';
import { Answers } from '../openapi/route-facts';
import { TriggersModule } from '../triggers/triggers.module';
import { ChatEventDispatcher, type DispatchResult } from './chat-event-dispatcher';
import { ChatPortModule } from './chat-port.module';

/** Most chat connections one delivery is checked against (ours): bounds the HMACs one request costs. */
const MAX_CANDIDATE_CONNECTIONS = 100;

const REFUSALS: Record<Exclude<SignatureCheck, 'ok'>, string> = {
  missing: `the request carries no chat signature (${SIGNATURE_HEADER} and ${TIMESTAMP_HEADER} are required)`,
  stale: `the request's ${TIMESTAMP_HEADER} is outside the allowed clock skew`,
  mismatch: 'the chat signature does not match any chat connection',
};

@Controller()
export class ChatEventsController {
  constructor(
    private readonly credentials: ConnectionCredentials,
    private readonly dispatcher: ChatEventDispatcher,
    @Inject(READ_STORE) private readonly reads: ReadStore,
  ) {}

  // `::` is find-my-way's literal colon: the path is `/v1/chat-connections:handleEvent`.
  @Post('v1/chat-connections::handleEvent')
  @HttpCode(200)
  @MachineOnly()
  @Answers(HandleChatEventResponse)
  async handleEvent(@Req() req: WithRawBody): Promise<HandleChatEventResponse> {
    const { raw, body: envelope } = signedBody(req, 'chat event');
    const verified = await this.verifiedConnections(req, raw, envelope);
    if (envelope.type === 'url_verification') {
      if (typeof envelope.challenge !== 'string') throw invalid('challenge is required on a url_verification event');
      return { challenge: envelope.challenge };
    }
    if (envelope.type !== 'event_callback') return { dispatched: [] };
    const dispatched: DispatchResult[] = [];
    for (const { org, connection } of verified) dispatched.push(...(await this.dispatcher.dispatch(org, connection, envelope)));
    return { dispatched };
  }

  private async verifiedConnections(req: WithRawBody, raw: string, envelope: JsonObject): Promise<{ org: string; connection: JsonObject }[]> {
    const header = (name: string) => {
      const value = req.headers[name];
      return typeof value === 'string' ? value : undefined;
    };
    const teamId = typeof envelope.team_id === 'string' ? envelope.team_id : undefined;
    // By workspace through its index, in any organization; a URL verification names none, so it is
    // checked against the first chat connections (the platform sends one when the URL is set up).
    const candidates =
      teamId === undefined
        ? await this.reads.collection('connections').find({ connectionType: CHAT_CONNECTION_TYPE }, { limit: MAX_CANDIDATE_CONNECTIONS })
        : await chatConnectionsOfTeam(this.reads, teamId, MAX_CANDIDATE_CONNECTIONS);
    const verified: { org: string; connection: JsonObject }[] = [];
    let refusal: Exclude<SignatureCheck, 'ok'> = 'mismatch';
    for (const doc of candidates) {
      const org = String(doc._org);
      const secret = await this.signingSecret(org, String(doc.name));
      if (secret === undefined) continue;
      const check = checkChatSignature({ signingSecret: secret, timestamp: header(TIMESTAMP_HEADER), signature: header(SIGNATURE_HEADER), body: raw, nowMs: Date.now() });
      if (check === 'ok') verified.push({ org, connection: doc });
      else refusal = check;
    }
    if (verified.length === 0) throw new DomainError('UNAUTHENTICATED', REFUSALS[refusal]);
    return verified;
  }

  /** The connection's signing secret in clear, or undefined when it has none or it cannot be opened here. */
  private async signingSecret(org: string, name: string): Promise<string | undefined> {
    try {
      const details = (await this.credentials.resolve(org, name)).connectionDetails;
      const chat = isPlainObject(details) && isPlainObject(details.chat) ? details.chat : {};
      return typeof chat.signingSecret === 'string' && chat.signingSecret !== '' ? chat.signingSecret : undefined;
    } catch (error) {
      if (error instanceof DomainError) return undefined;
      throw error;
    }
  }
}

@Module({ imports: [ConnectionsModule, TriggersModule, ChatPortModule], controllers: [ChatEventsController], providers: [ChatEventDispatcher] })
export class ChatModule {}
