import { Inject, Injectable } from '@nestjs/common';
import { SESSION_NAME_CLAIMED, sessionOwnerStreamId } from '@svc/contracts/sessions/session.events';
import { invalid, notFound } from '@svc/domain/shared/domain-error';
import { type EventStore } from '@svc/infrastructure/event-store/event-store.port';
import { EVENT_STORE, READ_STORE } from '@svc/infrastructure/nest/tokens';
import { docId } from '@svc/infrastructure/projection/projection';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';

const SESSION_NAME = /^agents\/([^/]{1,128})\/sessions\/[^/]{1,128}$/;

/** A live session and the organization it belongs to. */
export interface OwnedSession {
  org: string;
  /** `agents/{agent}/sessions/{session}` */
  session: string;
  /** `agents/{agent}` */
  agent: string;
}

/**
 * Resolves a session name to its one organization: session names are claimed across organizations
 * in the global stream `sessionowner-<name>` (event SessionNameClaimed {org, name}) before the
 * session stream is created, so the name alone says whose session it is. The session must then
 * exist and not be deleted in that organization's `sessions` read model.
 */
@Injectable()
export class SessionOwners {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly reads: ReadStore,
  ) {}

  async resolve(session: string): Promise<OwnedSession> {
    const match = SESSION_NAME.exec(session);
    if (!match) throw invalid(`session must be agents/{agent}/sessions/{session}, got '${session}'`);
    const claims = await this.events.readStream(sessionOwnerStreamId(session), { maxCount: 1 });
    const claim = claims.find((e) => e.type === SESSION_NAME_CLAIMED && e.data.name === session);
    const org = typeof claim?.data.org === 'string' ? claim.data.org : undefined;
    const doc = org ? await this.reads.collection('sessions').findOne({ _id: docId(org, session) }) : null;
    if (!org || !doc || doc.deleteTime) throw notFound(`session '${session}' not found`);
    return { org, session, agent: `agents/${match[1]}` };
  }
}
