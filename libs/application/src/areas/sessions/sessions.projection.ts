/**
 * Sessions, their runtime state and their messages, as one projection (one checkpoint), so a write
 * that waits for it can Read and Describe what it wrote. The session document is the kit's; the
 * runtime state rides on it in internal fields (`_status`, `_length`, `_lastMessage`, `_conclusion`:
 * never in a Get or List answer, read by DescribeSessions and Read). `session-messages` is the
 * message log as a view of the stream, one document per message keyed by session and offset, so
 * Read from any offset is an indexed range scan however long the session is.
 */
import { sessionsApi } from '@svc/contracts/sessions/sessions.contract';
import { SESSION_EVENTS, type SessionEvent } from '@svc/contracts/sessions/session.events';
import { resourceStreamId } from '@svc/domain/shared/resource';
import { sessionSpec } from '@svc/domain/sessions/session.resource';
import { combineProjections } from '@svc/infrastructure/projection/combine';
import { docId, type Projection } from '@svc/infrastructure/projection/projection';
import { resourceProjection } from '@svc/infrastructure/projection/resource.projection';
import type { WriteOp } from '@svc/infrastructure/read-store/read-store.port';

export const SESSIONS = 'sessions';
export const SESSION_MESSAGES = 'session-messages';
const SESSION_STREAMS = resourceStreamId(sessionSpec, '', '').slice(0, -1);

/** The message document of one offset. */
export const messageId = (org: string, session: string, offset: number): string => docId(org, `${session}/messages/${offset}`);

const sessionState: Projection = {
  name: 'session-state',
  version: 1,
  collections: [SESSION_MESSAGES],
  indexes: { [SESSION_MESSAGES]: ['session', 'offset'] },
  handle(e) {
    if (!e.record.streamId.startsWith(SESSION_STREAMS)) return [];
    const event = e.event as SessionEvent;
    const session = e.resourceName;
    const patch = (set: Record<string, unknown>): WriteOp => ({ op: 'update', collection: SESSIONS, id: docId(e.org, session), pos: e.pos, update: { $set: set } });
    switch (event.type) {
      case SESSION_EVENTS.messagesWritten: {
        const { firstOffset, messages, writeTime } = event.data;
        const docs: WriteOp[] = messages.map((message, i) => ({
          op: 'insert',
          collection: SESSION_MESSAGES,
          doc: { _id: messageId(e.org, session, firstOffset + i), _org: e.org, session, offset: firstOffset + i, message, writeTime },
        }));
        return [...docs, patch({ _length: firstOffset + messages.length, _lastMessage: writeTime })];
      }
      case SESSION_EVENTS.statusChanged:
        return [patch({ _status: event.data.status })];
      case SESSION_EVENTS.concluded:
        return [patch({ _conclusion: { done: event.data.done } })];
      default:
        return [];
    }
  },
};

export const sessionsProjection = combineProjections(SESSIONS, 1, [resourceProjection(sessionSpec, sessionsApi), sessionState]);
